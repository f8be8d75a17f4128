"""Encode: score, classify and compare memory texts (DESIGN.md section 5, Encode).

Pure functions, no I/O. ``encode`` gives a new memory its importance, type,
domain and keywords; ``find_duplicate`` decides whether an incoming text
restates an existing memory (reinforce it) or is new (create it).

Reinforcing the wrong memory loses information, so a duplicate needs two
things: a high lexical ``similarity`` *and* no ``conflict``. A conflict is a
difference that changes the fact even when most words are shared: a number,
a date or time, a name, or a negation ("port 5432" vs "port 5433", "use tabs"
vs "never use tabs"). Texts may mix English, French and Chinese.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DUPLICATE_THRESHOLD",
    "Domain",
    "Encoding",
    "MemoryType",
    "conflict",
    "encode",
    "find_duplicate",
    "importance",
    "is_duplicate",
    "keywords",
    "similarity",
]

MemoryType = Literal["fact", "preference", "decision", "skill", "error", "emotion", "pattern", "reflection"]
Domain = Literal["user", "self", "relationship", "world", "project"]

# Chosen by measurement, on tests/fixtures/dedupe_pairs.jsonl plus ~100 more
# pairs kept out of the fixture: different facts with no conflict to catch
# ("importer crashes" vs "exporter crashes") scored at most 0.59, duplicates
# that add, drop, reorder or abbreviate words at least 0.67. Every threshold
# from 0.60 to 0.66 gave the same result; 0.62 sits inside that band.
# Paraphrases that swap a verb for an unknown synonym score 0.4-0.6, as low
# as different facts do, and are left unmerged: a missed reinforcement only
# costs a duplicate, a false merge loses a fact.
DUPLICATE_THRESHOLD = 0.62
_TOKEN_WEIGHT = 0.5  # word overlap vs. spelling overlap in the blend
_SWAP_PENALTY = 0.3  # share of the score a swapped word costs


@dataclass(frozen=True)
class Encoding:
    """What ``encode`` learns about a text before it becomes a memory."""

    importance: float
    reason: str
    type: MemoryType
    domain: Domain
    keywords: tuple[str, ...]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --------------------------------------------------------------------------
# Vocabulary. Accent-free and lowercase, because texts are folded the same
# way before lookup ("préfère" and "prefere" must meet).

_STOP = _words(
    "a an the and or but if then else of to in on at by for with from into onto over under about as"
    " is am are was were be been being do does did doing done have has had having this that these those"
    " there here it its they them their theirs we us our ours you your yours he him his she her hers"
    " i me my mine myself user what which who whom whose when where why how all any both each every few"
    " more most less other some such only own same so than too very can could will would shall should"
    " may might must also again ever even still yet already just really actually basically simply"
    " please ok okay note noted fyi btw etc via per s t d ll ve re m always generally usually currently"
    " now get got let lets make sure important importantly kindly well anyway whether while because"
    " todo fixme nb ps asap tip hint reminder remind"
    " find found keep kept through thru using happen happens happened out up down off away"
)
_STOP_FR = _words(
    " le la les l un une des du de d au aux ce cet cette ces c ca cela ceci et ou mais donc ni car que qu"
    " qui quoi dont en dans sur sous par pour avec chez vers entre est sont etre ete etait suis es sommes"
    " etes ai as avons avez ont avait il elle ils elles on nous vous tu te toi se sa son ses leur leurs"
    " mon ma mes ton ta tes notre nos votre vos y ne pas plus tres bien aussi encore deja toujours tout"
    " tous toute toutes meme comme si alors puis faut chaque vraiment juste simplement svp stp je j moi"
    " utilisateur utilisatrice il y a fait se trouve plait a"
)
_STOP = _STOP | _STOP_FR
# Words that are never names even when capitalized ("Deploy on Friday").
_VERBS = _words(
    "use run build deploy ship push pull merge commit test check send call ask tell reply answer write read"
    " open close start stop restart install update upgrade remove delete add create keep retry cache store"
    " save load fix avoid prefer like love hate enjoy want need try make do go see look wait set put take"
    " give move copy rename lint format review release publish sync backup back log print show list"
    " contact email ping mention notify alert remind follow include exclude enable disable allow deny"
    " block skip ignore reject accept approve prompt respond explain describe summarize translate"
    " speak talk work meet schedule plan decide choose pick agree switch change rotate clean document"
    " always never note decision fact preference error lesson pattern reflection today tomorrow"
    " utilise lance garde envoie demande reponds ecris lis ouvre ferme commence arrete installe supprime"
    " ajoute cree evite prefere aime deteste veut teste deploie pousse"
)
_NEGATIONS = _words(
    "not no never none nothing nobody nowhere neither nor without cannot anymore avoid avoids avoided"
    " avoiding dislike dislikes disliked hate hates hated refuse refuses refused forbid forbids"
    " forbidden prohibit prohibited disallow disallowed ne pas jamais aucun aucune rien sans non"
    " evite eviter evitez deteste detestes detester"
)
_EN_NUMBERS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1000000, "once": 1, "twice": 2, "thrice": 3, "dozen": 12,
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
    "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "vingt": 20, "vingts": 20,
    "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60, "cent": 100,
    "mille": 1000,
}
# Only inside a compound ("twenty-one", "vingt et un"): alone they are articles.
_NUMBER_GLUE = {"one": 1, "un": 1, "une": 1, "and": 0, "et": 0}
_SYNONYMS = {
    "db": "database", "databases": "database", "bdd": "database", "repo": "repository",
    "repos": "repository", "repositories": "repository", "depot": "repository", "config": "configuration",
    "conf": "configuration", "cfg": "configuration", "env": "environment", "environments": "environment",
    "prod": "production", "dev": "development", "k8s": "kubernetes", "pg": "postgres",
    "postgresql": "postgres", "js": "javascript", "ts": "typescript", "py": "python", "docs": "documentation",
    "doc": "documentation", "auth": "authentication", "app": "application", "apps": "application",
    "msg": "message", "info": "information", "prs": "pr", "mr": "pr", "deployment": "deploy",
    "deployments": "deploy", "deploiement": "deploy", "deploiements": "deploy", "deployed": "deploy",
    "deploying": "deploy", "deploys": "deploy", "answer": "reply", "answers": "reply", "response": "reply",
    "responses": "reply", "replies": "reply", "reponse": "reply", "reponses": "reply", "prefers": "prefer",
    "preferred": "prefer", "like": "prefer", "likes": "prefer", "liked": "prefer", "love": "prefer",
    "loves": "prefer", "enjoy": "prefer", "enjoys": "prefer", "prefere": "prefer", "preferes": "prefer",
    "aime": "prefer", "aimes": "prefer", "adore": "prefer", "favor": "prefer", "favour": "prefer",
    "hates": "dislike", "hate": "dislike", "hated": "dislike", "detest": "dislike", "deteste": "dislike",
    "dislikes": "dislike", "uses": "use", "used": "use", "using": "use", "utilise": "use",
    "utilisent": "use", "utiliser": "use", "utilisons": "use", "utilisez": "use", "employ": "use",
    "runs": "run", "ran": "run", "running": "run", "execute": "run", "executes": "run", "executed": "run",
    "lance": "run", "lancer": "run", "lancez": "run", "tourne": "run", "tournent": "run",
    "executer": "run", "quick": "fast", "rapid": "fast", "rapide": "fast", "lent": "slow",
    "short": "concise", "brief": "concise", "terse": "concise", "succinct": "concise", "court": "concise",
    "courte": "concise", "courtes": "concise", "courts": "concise", "concis": "concise",
    "concises": "concise", "bref": "concise", "breve": "concise", "breves": "concise", "long": "verbose",
    "lengthy": "verbose", "detailed": "verbose", "longue": "verbose", "longues": "verbose",
    "longs": "verbose", "detaille": "verbose", "detaillee": "verbose", "detaillees": "verbose",
    "detailles": "verbose", "verbeux": "verbose", "owns": "own", "owned": "own", "owner": "own",
    "responsible": "own", "responsable": "own", "gere": "own", "gerer": "own", "begin": "start",
    "begins": "start", "commence": "start", "fixes": "fix", "fixed": "fix", "repair": "fix",
    "corrige": "fix", "errors": "error", "erreur": "error", "erreurs": "error", "min": "minute",
    "mins": "minute", "minutes": "minute", "sec": "second", "secs": "second", "seconds": "second",
    "seconde": "second", "secondes": "second", "hr": "hour", "hrs": "hour", "hours": "hour",
    "heure": "hour", "heures": "hour", "days": "day", "jour": "day", "jours": "day", "weeks": "week",
    "semaine": "week", "semaines": "week", "months": "month", "mois": "month", "years": "year",
    "ans": "year", "annee": "year", "annees": "year", "milliseconds": "ms", "millisecond": "ms",
    "go": "gb", "mo": "mb", "ko": "kb", "gib": "gb", "mib": "mb", "kib": "kb", "percent": "%",
    "pourcent": "%", "tests": "test", "tabs": "tab", "tabulation": "tab", "tabulations": "tab",
    "spaces": "space", "espace": "space", "espaces": "space", "timeouts": "timeout",
    "lives": "located", "live": "located", "sits": "located", "resides": "located", "situated": "located",
    "situe": "located", "situee": "located", "trouve": "located", "big": "large", "huge": "large",
    "little": "small", "tiny": "small", "h": "hour", "requires": "need", "require": "need",
    "required": "need", "needs": "need", "needed": "need", "necessite": "need", "broken": "fail",
    "broke": "fail", "failing": "fail", "failed": "fail", "fails": "fail",
}
_PHRASES = (
    (r"pull[- ]requests?|merge[- ]requests?", "pr"),
    (r"continuous integration", "ci"),
    (r"bases? de donn[ée]es|data ?bases?", "database"),
    (r"tim(?:ed|es|ing)? out", "timeout"),
    (r"(?:would|'d) rather", "prefer"),
    (r"(?:is |are |est |sont )?(?:responsible for|responsables? d[eu]|in charge of|en charge d[eu])", "own"),
    (r"command[- ]line", "cli"),
    (r"user interface", "ui"),
    (r"e-mail", "email"),
    (r"set up", "setup"),
    (r"(?:every|each) day|tous les jours|chaque jour", "daily"),
    (r"(?:every|each) week|toutes les semaines|chaque semaine", "weekly"),
    (r"(?:every|each) month|tous les mois|chaque mois", "monthly"),
    (r"(?:every|each) night", "nightly"),
)
# Lowercase words that name one thing among alternatives: swapping them
# changes the fact as surely as swapping "Alice" for "Bob" does.
_NAMED = _words(
    "python java javascript typescript rust golang ruby php perl kotlin scala haskell elixir erlang"
    " clojure lua bash zsh powershell postgres mysql mariadb sqlite redis mongodb mongo cassandra"
    " dynamodb elasticsearch opensearch clickhouse snowflake bigquery oracle mssql memcached kafka"
    " rabbitmq supabase firebase git svn mercurial docker podman kubernetes helm terraform ansible nginx"
    " apache caddy traefik jenkins circleci travis gitlab github bitbucket npm yarn pnpm bun deno node"
    " nodejs pip pipx poetry uv conda pdm cargo maven gradle cmake bazel webpack rollup"
    " esbuild babel eslint prettier ruff flake8 pylint isort mypy pyright pytest unittest jest"
    " mocha vitest cypress playwright selenium django flask fastapi rails laravel reactjs vuejs"
    " angular svelte nextjs nuxt expressjs tailwind bootstrap jquery vim neovim nvim emacs vscode nano"
    " intellij pycharm sublime aws gcp azure heroku vercel netlify cloudflare digitalocean linux ubuntu"
    " debian fedora centos alpine macos windows ios android wsl tab space json yaml toml xml csv"
    " markdown html css sql graphql grpc http https ssh tcp udp staging production development preprod"
    " qa uat sandbox minute second hour day week month year ms kb mb gb tb % slack discord"
    " jira confluence trello asana figma chrome firefox safari english french chinese"
    " spanish german japanese anglais francais chinois espagnol allemand"
    " alice bob carol dave eve frank grace heidi ivan judy mallory oscar peggy trent victor walter andy"
    " john jane mike michael paul peter mary sarah tom thomas james david daniel emma olivia sophie marie"
    " pierre jean luc julien camille nicolas lucas louis chloe lea manon hugo antoine alex"
    " alexandre anne laura julie nathalie isabelle francois philippe laurent eric kevin chris kate"
    " lisa linda susan karen nancy helen sandra emily anna nina sam ben dan jim joe tim ted ryan jason"
    " brian wang zhang liu chen yang huang zhao zhou xu zhu guo lin luo"
)
_UNITS = _words("minute second hour day week month year ms kb mb gb tb %")
_ANTONYMS = (
    ("enable", "disable"), ("enabled", "disabled"), ("on", "off"), ("true", "false"), ("yes", "no"),
    ("allow", "deny"), ("accept", "reject"), ("increase", "decrease"), ("more", "less"),
    ("higher", "lower"), ("before", "after"), ("above", "below"), ("open", "closed"), ("start", "stop"),
    ("success", "failure"), ("pass", "fail"), ("public", "private"), ("sync", "async"), ("old", "new"),
    ("concise", "verbose"), ("dark", "light"), ("left", "right"), ("up", "down"), ("input", "output"),
    ("min", "max"), ("minimum", "maximum"), ("first", "last"), ("upper", "lower"), ("major", "minor"),
    ("fast", "slow"), ("small", "large"), ("frontend", "backend"), ("client", "server"), ("read", "write"),
    ("internal", "external"), ("local", "remote"), ("prefer", "dislike"), ("include", "exclude"),
    ("avant", "apres"), ("activer", "desactiver"), ("active", "desactive"), ("vrai", "faux"),
    ("oui", "non"), ("clair", "sombre"), ("gauche", "droite"), ("debut", "fin"), ("petit", "grand"),
    ("approve", "reject"), ("east", "west"), ("north", "south"), ("add", "remove"), ("win", "lose"),
)
_EXPLICIT_TRIGGERS = (
    r"(?:please |pls )?remember(?: (?:this|that))?\b:?"
    r"|(?:please )?(?:don'?t|do not|never) forget(?: (?:this|that))?\b:?"
    r"|keep in mind(?: that)?|make a note(?: that)?|note to self:?"
    r"|reti(?:ens|enez)(?: bien)?(?: (?:que|ceci|ca)\b)?:?|n'?oubli(?:e|ez) (?:pas|jamais)(?: (?:que|de)\b)?:?"
    r"|souvien[st][- ](?:toi|vous)(?: (?:que|de)\b)?|souvenez[- ]vous(?: (?:que|de)\b)?"
    r"|rappelle[- ]toi(?: que\b)?|garde(?:z)? (?:bien )?en (?:t[eê]te|m[eé]moire)(?: que\b)?"
    r"|请?记住|别忘了|别忘记|不要忘记|不要忘了|千万别忘|请记得|记得|牢记|记一下|记下来"
)
# Where "remember" starts an instruction rather than reporting a memory
# ("I don't remember the password" is not a request to remember).
_EXPLICIT_RE = re.compile(
    r"(?:^|(?<=[.!?;:\n]))\s*[-*>\"']*\s*(?:" + _EXPLICIT_TRIGGERS + r")"
    r"|(?<!\bi )(?<!\bwe )(?<!n't )(?<!not )\bremember (?:this|that)\b"
    r"|\b(?:please remember|don'?t forget|do not forget|never forget|keep in mind|note to self)\b"
    r"|\bn'?oubli(?:e|ez) pas\b|\bretiens\b|\bsouviens[- ]toi\b|\bsouvenez[- ]vous\b|请?记住|别忘|不要忘|记得|牢记"
)
_EMOTION_RE = re.compile(
    r"\bi (?:really |so |absolutely |just )?(?:love|hate|adore|loathe|can't stand)\b"
    r"|\b(?:frustrat\w*|annoy\w*|angry|upset|furious|happy|sad|glad|excited|thrilled|worried|anxious"
    r"|scared|afraid|stressed|overwhelmed|disappointed|proud|grateful|relieved|lonely|depressed"
    r"|exhausted|tired of|fed up|sick of|i feel|i'm feeling|makes me)\b"
    r"|\bj'adore\b|\bje (?:deteste|hais)\b|\bfrustr\w*|\benerv\w*|\bje suis (?:tres )?(?:content|heureu|triste"
    r"|decu|fier|fiere|ravi|inquiet|stresse|deprime|en colere)\w*|\bj'en ai marre\b|\bje me sens\b"
    r"|\bca m'(?:enerve|agace|fatigue)\b"
    r"|讨厌|开心|高兴|难过|伤心|生气|沮丧|烦死|好烦|很烦|焦虑|担心|害怕|失望|兴奋|激动|感动|郁闷|崩溃|受不了|我爱|压力"
)
_PREFERENCE_RE = re.compile(
    r"\bi (?:really |much |usually )?(?:prefer|like|want)\b|\bi'?d rather\b|\bi would rather\b"
    r"|\b(?:always|never|prefers?|preferred|from now on|my favou?rite|rather than)\b"
    r"|\bje prefere\b|\bj'aime\b|\bje n'aime\b|\btoujours\b|\bjamais\b|\bdesormais\b|\ba l'avenir\b"
    r"|\bplutot que\b|\bprefere\b"
    r"|我(?:更|比较|最)?喜欢|更喜欢|偏好|偏爱|总是|从不|从来不|永远|以后|宁愿|不喜欢|习惯用"
)
_DECISION_RE = re.compile(
    r"\b(?:we|i|they|team) (?:have |has |'ve )?(?:decided|chose|chosen|picked|agreed|settled on)\b"
    r"|\bdecided to\b|\bdecision\b|\blet'?s (?:go with|use|stick with)\b|\bwe(?:'ll| will) (?:go with|use)\b"
    r"|\bgoing forward\b|\bagreed to\b|\bon a (?:decide|choisi|convenu|tranche)\b"
    r"|\bnous avons (?:decide|choisi)\b|\bj'ai (?:decide|choisi)\b|\bon part sur\b|\bon va utiliser\b"
    r"|\bdecision\b|决定|定了|选定|我们选|就用|确定用|敲定|采用"
)
_PERSON_PROJECT_RE = re.compile(
    r"\bmy name is\b|\bi am an? \b|\bi'm an? \b|\bi work (?:at|on|for|in)\b|\bi live\b|\bi'm from\b"
    r"|\bmy (?:wife|husband|partner|son|daughter|kids?|team|manager|boss|company|job|role|email|account"
    r"|birthday|github|username|title|mother|father|mom|dad)\b"
    r"|\b(?:our|the|this) (?:project|repo|repository|codebase|team|app|service|stack|product|company)\b"
    r"|\bwe use\b|\bje m'appelle\b|\bmon nom est\b|\bje travaille\b|\bj'habite\b"
    r"|\b(?:notre|le|ce) (?:projet|equipe|depot|application|service|produit)\b|\bon utilise\b"
    r"|\bnous utilisons\b|我叫|我的名字|我是|我住在|我们的项目|我们项目|项目用|项目使用|这个项目"
    r"|我们用|我们使用|团队|项目"
)
# Capitalized names owning or doing something: facts about people.
_PERSON_CASED_RE = re.compile(
    r"\b[A-Z][a-z]+(?:'s\b| (?:owns|leads|manages|maintains|works|handles|prefers|likes|uses|is responsible)\b"
    r"|\s*的)"
)
_POSSESSIVE_RE = re.compile(r"\b[A-Z][a-z]+(?:'s\b|\s*的)")
_ERROR_RE = re.compile(
    r"\b(?:error|errors|bug|bugs|fail|fails|failed|failing|failure|crash\w*|exception|traceback|broken"
    r"|broke|timed out|times out|regression|doesn't work|does not work|not working|erreur\w*|plante|plantage"
    r"|echou\w*|echec|bogue|ne marche pas|ne fonctionne pas)\b"
    r"|错误|报错|失败|崩溃|超时|异常|故障|出错|不工作|不能用|限流|\bbug"
)
_SKILL_RE = re.compile(
    r"\bhow to\b|\bto fix\b|\bfix(?:ed)? (?:it |this )?by\b|\bthe (?:fix|trick|workaround|solution) is\b"
    r"|\bworkaround\b|\bin order to\b|\bsteps?\b|\bfirst\b.*\bthen\b|\buse \S+ to\b|\brun `"
    r"|\bcomment (?:faire|corriger)\b|\bpour (?:corriger|resoudre|faire)\b|\bastuce\b|\bd'abord\b.*\bpuis\b"
    r"|如何|怎么|怎样|方法|步骤|解决|办法|先.+再|分段|需要先"
)
_REFLECTION_RE = re.compile(r"^\s*(?:lesson|lessons learned|reflection|lecon|反思|教训|总结)\b\s*[:：]?")
_PATTERN_RE = re.compile(r"^\s*(?:pattern|motif|模式)\s*[:：]")
_SELF_RE = re.compile(
    r"\byou (?:should|must|need to|have to|always|never|tend to|are|were|can|shouldn't|mustn't)\b"
    r"|\byour\b|\bthe (?:agent|assistant)\b|\bas an? (?:agent|assistant|ai)\b"
    r"|\btu (?:dois|devrais|es|peux)\b|\bvous devez\b|\bton\b|\btes\b"
    r"|你应该|你要|你需要|你是|你总是|你的|助手"
)
_RELATIONSHIP_RE = re.compile(
    r"\bwe (?:work|worked|talk|talked|collaborate|pair|get along|trust|communicate|chat)\b|\bbetween us\b"
    r"|\byou and (?:i|me)\b|\bwith you\b|\btogether\b|\bour (?:relationship|collaboration|conversations?"
    r"|sessions?|chats?)\b|\bthank(?:s| you)\b|\bentre nous\b|\bensemble\b|\bnotre (?:collaboration|relation)\b"
    r"|我们一起|我们之间|咱们|合作|谢谢你"
)
_PROJECT_RE = re.compile(
    r"`|\b[\w-]+\.(?:py|js|ts|tsx|jsx|md|yaml|yml|json|toml|sh|go|rs|java|c|cpp|h|rb|sql|html|css|txt"
    r"|cfg|ini|lock|env)\b|\w/\w"
    r"|\b(?:code|repo|repository|build|deploy\w*|release|branch|commit|merge|tests?|ci|pipeline|server"
    r"|database|db|api|endpoint|port|script|function|module|library|package|dependenc\w+|config\w*"
    r"|staging|production|prod|project|service|frontend|backend|lint\w*|compile\w*|migration\w*"
    r"|projet|depot|deploiement|serveur|fonction|branche|bdd)\b"
    r"|项目|代码|仓库|部署|发布|构建|测试|服务器|数据库|接口|端口|分支|提交|脚本|函数|配置|上线|环境"
)
_USER_RE = re.compile(
    r"\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll|the user|user's|je|moi|mon|ma|mes|l'utilisateur)\b|\bj'"
    r"|我(?!们)|用户"
)
_PERSONAL_RE = re.compile(
    r"\bmy name\b|\bi live\b|\bi'm from\b|\bi am from\b|\bi work\b|\bje m'appelle\b|\bj'habite\b"
    r"|\bje travaille\b|我叫|我的名字|我住|我在.{1,12}工作"
)


# --------------------------------------------------------------------------
# Folding and tokens.

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_W = rf"[^\W{_CJK}]"
_TOKEN_RE = re.compile(
    rf"`(?P<code>[^`\n]+)`|(?P<cjk>[{_CJK}]+)|(?P<word>{_W}+(?:[.\-/'@+#]{_W}+)*[+#]*)"
)
_IS_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_ELISIONS = {"l": "", "d": "", "j": "je", "m": "", "t": "", "s": "", "n": "ne", "c": "", "qu": "",
             "jusqu": "", "lorsqu": "", "puisqu": ""}


def _nfkc(text: str) -> str:
    """NFKC with one apostrophe: how every text is read first."""
    text = unicodedata.normalize("NFKC", text)
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("\u02bc", "'")


def _unaccent(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    # Only Latin diacritics go: Japanese voicing marks are letters, not accents.
    kept = "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f")
    return unicodedata.normalize("NFC", kept)


# Accented words that would fold into an English stop word.
_ACCENTED_RE = re.compile(r"\bth[éÉ]s?\b")


def _fold(text: str) -> str:
    """NFKC, one apostrophe, Latin accents dropped; case kept."""
    return _unaccent(_ACCENTED_RE.sub("tea", _nfkc(text)))


def _stem(word: str) -> str:
    """A light EN/FR stemmer: enough that "prefers"/"preferred" meet."""
    if not word.isalpha() or len(word) <= 3:
        return word
    for suffix in ("ing", "ies", "ied", "ed", "es", "ent", "s", "e", "x"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                stem += "y"
            # "running" -> "runn" -> "run"; keep "ll"/"ss" ("telling", "passed").
            if suffix in ("ing", "ed") and len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "ls":
                stem = stem[:-1]
            return stem
    return word


# Compared by stem, so "enabled" meets "enable" and "approved" meets "approve".
_ANTONYM_STEMS = tuple((_stem(x), _stem(y)) for x, y in _ANTONYMS)


@dataclass(frozen=True)
class _Word:
    """One Latin token: its canonical form and whether it looks like a name."""

    form: str  # lowercase, accent-free, synonym-mapped, unstemmed
    stem: str
    name: Literal["", "weak", "strong"]
    content: bool


def _classify(raw: str, low: str, form: str, initial: bool, code: bool) -> Literal["", "weak", "strong"]:
    if low in _STOP or low in _VERBS or low in _NEGATIONS or low in _EN_NUMBERS or form in _STOP:
        return ""
    if _IS_NUMBER.fullmatch(form):
        return ""
    if code or low in _NAMED or form in _NAMED:
        return "strong"
    if low in _SYNONYMS:
        return ""  # "DB", "BDD", "repo": abbreviations of common words
    if any(not c.isalpha() for c in low):  # identifiers, file names, versions
        return "strong"
    if len(raw) > 1 and any(c.isupper() for c in raw[1:]):
        return "strong"  # MySQL, GitHub, AWS
    if raw[:1].isupper():
        # At a sentence start capitals prove nothing; mid-sentence they do.
        return "weak" if initial else "strong"
    return ""


def _split_word(raw: str) -> list[str]:
    """Contractions, elisions and hyphenated words into plain words."""
    low = raw.casefold()
    if "'" in low:
        head, _, tail = low.partition("'")
        if tail == "t" and head.endswith("n"):
            base = {"can": "can", "won": "will", "don": "do", "shan": "shall"}.get(head, head[:-1])
            return [base, "not"]
        if head in _ELISIONS and tail:
            return [w for w in (_ELISIONS[head],) if w] + _split_word(raw[len(head) + 1:])
        if _unaccent(low) == "aujourd'hui":
            return [low]
        return [head] + ([] if tail in ("s", "m", "re", "ve", "ll", "d") else [tail])
    if "-" in low and all(part.isalpha() for part in low.split("-")):
        return low.split("-")
    return [low]


def _is_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'([*->#")
    return not before or before[-1] in ".!?:;\n"


def _latin_words(text: str) -> list[tuple[_Word, str]]:
    """(word, surface) pairs of the Latin part of ``text``; surfaces keep accents."""
    out: list[tuple[_Word, str]] = []
    for match in _TOKEN_RE.finditer(text):
        if match.group("cjk"):
            continue
        code = match.group("code") is not None
        pieces = _TOKEN_RE.finditer(match.group("code")) if code else [match]
        initial = _is_initial(text, match.start())
        for piece in pieces:
            raw = piece.group("word")
            if not raw:
                continue
            for surface in _split_word(raw):
                low = surface if surface.isascii() else _unaccent(surface)
                form = _SYNONYMS.get(low, low)
                # An accented word is only a French stop word: "thé" is not "the".
                stop = _STOP_FR if low != surface else _STOP
                content = low not in stop and form not in stop and low not in _NEGATIONS
                word = _Word(form, _stem(form), _classify(raw, low, form, initial, code), content)
                out.append((word, surface))
                initial = False
    return out


# --------------------------------------------------------------------------
# Numbers, dates and times, Chinese included.

_ZH_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
# A numeral only counts before a measure word: "三次" is 3, "一起" is not 1.
_ZH_NUMERAL_RE = re.compile(
    r"[零〇一二两三四五六七八九十百千万]+(?=[个次天日号月年周岁点分秒小时台块元倍人条位遍份页行层级版步项种期届名]|$)"
)


def _zh_value(run: str) -> int:
    total = section = digit = 0
    for ch in run:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            section += (digit or 1) * _ZH_UNITS[ch]
            digit = 0
        else:  # 万
            total += (section + digit) * 10000
            section = digit = 0
    return total + section + digit


def _zh_numerals(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        run, after = match.group(), text[match.end(): match.end() + 2]
        # "一" alone is the article "a"; "十分" is "very" unless "十分钟".
        if run == "一" and after[:1] not in ("月", "日", "号"):
            return run
        if after[:1] == "分" and after[1:2] != "钟":
            return run
        return str(_zh_value(run))
    return _ZH_NUMERAL_RE.sub(swap, text)


_NUMWORD_RE = re.compile(
    r"\b(?:(?:" + "|".join(sorted({*_EN_NUMBERS, *_NUMBER_GLUE}, key=len, reverse=True)) + r")\b[- ]?)+",
    re.IGNORECASE | re.ASCII,
)


def _parse_number_words(words: list[str]) -> list[int]:
    """["twenty", "five"] -> [25]; ["two", "three"] -> [2, 3]; French compounds too."""
    values: list[int] = []
    total = current = 0
    started = False
    for i, w in enumerate(words):
        value = _EN_NUMBERS.get(w, _NUMBER_GLUE.get(w, 0))
        if w in ("and", "et"):
            continue
        if w.startswith("vingt") and i and words[i - 1] == "quatre":
            current += 76  # quatre-vingt = 4 x 20
        elif value == 100:
            current = (current or 1) * 100
        elif value >= 1000:
            total += (current or 1) * value
            current = 0
        else:
            tens = current % 100
            # "soixante-dix" is 70 and "twenty five" 25, but "two three" is two numbers.
            joins = tens == 0 or (tens % 10 == 0 and value < 10) or (tens in (60, 80) and 10 <= value < 20)
            if started and not joins:
                values.append(total + current)
                total = current = 0
            current += value
        started = True
    values.append(total + current)
    return values


def _number_words(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        words = [w for w in re.split(r"[- ]+", match.group().casefold()) if w]
        if not any(w in _EN_NUMBERS for w in words) or len(words) > 8:
            return match.group()  # "one", "and", "un" alone are not numbers
        trailing = " " if match.group().endswith((" ", "-")) else ""
        return " ".join(str(v) for v in _parse_number_words(words)) + trailing
    return _NUMWORD_RE.sub(swap, text)


_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3,
    "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "aout": 8,
    "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
}
_MONTH_ALONE = _words(
    "january february april june july august september october november december"
    " janvier fevrier avril juin juillet aout septembre octobre novembre decembre"
)
_WEEKDAYS = {
    "monday": "monday", "tuesday": "tuesday", "wednesday": "wednesday", "thursday": "thursday",
    "friday": "friday", "saturday": "saturday", "sunday": "sunday", "lundi": "monday", "mardi": "tuesday",
    "mercredi": "wednesday", "jeudi": "thursday", "vendredi": "friday", "samedi": "saturday",
    "dimanche": "sunday",
}
_ZH_WEEKDAYS = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
                "六": "saturday", "日": "sunday", "天": "sunday", "1": "monday", "2": "tuesday",
                "3": "wednesday", "4": "thursday", "5": "friday", "6": "saturday", "7": "sunday"}
_PERIODS = {
    "today": "today", "tonight": "tonight", "tomorrow": "tomorrow", "yesterday": "yesterday",
    "weekend": "weekend", "weekends": "weekend", "morning": "morning", "mornings": "morning",
    "afternoon": "afternoon", "afternoons": "afternoon", "evening": "evening", "evenings": "evening",
    "night": "night", "nights": "night", "noon": "noon", "midnight": "midnight", "daily": "daily",
    "weekly": "weekly", "monthly": "monthly", "yearly": "yearly", "annually": "yearly", "hourly": "hourly",
    "nightly": "nightly", "quarterly": "quarterly", "biweekly": "biweekly",
    "aujourd'hui": "today", "demain": "tomorrow", "hier": "yesterday", "matin": "morning",
    "apres-midi": "afternoon", "soir": "evening", "soiree": "evening", "nuit": "night", "midi": "noon",
    "minuit": "midnight", "quotidien": "daily", "quotidienne": "daily", "hebdomadaire": "weekly",
    "mensuel": "monthly", "mensuelle": "monthly", "annuel": "yearly", "annuelle": "yearly",
    "week-end": "weekend",
    "今天": "today", "明天": "tomorrow", "昨天": "yesterday", "后天": "day-after-tomorrow",
    "前天": "day-before-yesterday", "今晚": "tonight", "明晚": "tomorrow-night", "昨晚": "last-night",
    "周末": "weekend", "早上": "morning", "上午": "morning", "中午": "noon", "下午": "afternoon",
    "晚上": "evening", "凌晨": "small-hours", "每天": "daily", "每日": "daily", "每周": "weekly",
    "每月": "monthly", "每年": "yearly", "每晚": "nightly", "本周": "this-week", "这周": "this-week",
    "下周": "next-week", "上周": "last-week", "下个月": "next-month", "上个月": "last-month",
    "本月": "this-month", "今年": "this-year", "明年": "next-year", "去年": "last-year",
}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ZH_HOUR_SHIFT = {"下午": 12, "晚上": 12}
# ASCII matching: a case-insensitive Unicode match would let "ſept" or a
# dotless "ı" through to dictionary look-ups keyed in ASCII.
_DATE_RES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE | re.ASCII), kind)
    for pattern, kind in (
        (r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b", "ymd"),
        (r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b|\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b", "dmy"),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", "ymd"),
        (r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", "md"),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月", "ym"),
        (rf"\b({_MONTH_NAMES})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}})\b)?", "mdy"),
        (rf"\b(\d{{1,2}})(?:st|nd|rd|th|er|e)? (?:of )?({_MONTH_NAMES})\b\.?(?: (\d{{4}})\b)?", "dmy-name"),
        (rf"\b({_MONTH_NAMES}) (\d{{4}})\b", "my"),
        (r"(?:(上午|早上|中午|下午|晚上|凌晨)\s*)?(\d{1,2})\s*[点點](?:\s*(\d{1,2})\s*分|(半))?", "zh-time"),
        (r"\b(\d{1,2}):(\d{2})(?::\d{2})?(?:\s*([ap])\.?m\.?\b)?", "hm"),
        (r"\b(\d{1,2})\s*([ap])\.?m\b\.?", "h-ampm"),
        (r"\b(\d{1,2})h(\d{2})\b|(?<=\b[aà] )(\d{1,2})h\b|(?<=\bvers )(\d{1,2})h\b", "fr-time"),
        (r"(?:星期|礼拜|周)([一二三四五六日天1-7])", "zh-weekday"),
        (r"\b(next|last|this) (week|month|year|quarter)\b", "relative"),
        (r"\b(semaine|mois|annee) (prochaine?|derniere?)\b", "relative-fr"),
        (r"\b(" + "|".join(_WEEKDAYS) + r")s?\b", "weekday"),
        (r"\b(" + "|".join(sorted(_MONTH_ALONE)) + r")\b", "month"),
        (r"\b(" + "|".join(k for k in _PERIODS if k.isascii()) + r")(?![\w-])", "period"),
        ("(" + "|".join(k for k in sorted(_PERIODS, key=len, reverse=True) if not k.isascii()) + ")", "period"),
    )
)


def _date_token(match: re.Match[str], kind: str) -> str:
    g = match.groups()
    if kind == "ymd":
        return f"{int(g[0]):04d}-{int(g[1]):02d}-{int(g[2]):02d}"
    if kind == "dmy":
        d, m, y = g[:3] if g[0] else g[3:]
        return f"{int(d)}/{int(m)}/{int(y)}"
    if kind == "md":
        return f"{int(g[0]):02d}-{int(g[1]):02d}"
    if kind == "ym":
        return f"{int(g[0]):04d}-{int(g[1]):02d}"
    if kind in ("mdy", "dmy-name"):
        month, day = (g[0], g[1]) if kind == "mdy" else (g[1], g[0])
        stem = f"{_MONTHS[month.casefold()]:02d}-{int(day):02d}"
        return f"{int(g[2]):04d}-{stem}" if g[2] else stem
    if kind == "my":
        return f"{int(g[1]):04d}-{_MONTHS[g[0].casefold()]:02d}"
    if kind == "zh-time":
        hour = int(g[1]) + (_ZH_HOUR_SHIFT.get(g[0] or "", 0) if int(g[1]) < 12 else 0)
        minute = 30 if g[3] else int(g[2] or 0)
        return f"{hour:02d}:{minute:02d}"
    if kind == "hm":
        hour = int(g[0]) % 12 + (12 if (g[2] or "").casefold() == "p" else 0) if g[2] else int(g[0])
        return f"{hour:02d}:{int(g[1]):02d}"
    if kind == "h-ampm":
        return f"{int(g[0]) % 12 + (12 if g[1].casefold() == 'p' else 0):02d}:00"
    if kind == "fr-time":
        hour_text = g[0] or g[2] or g[3]
        return f"{int(hour_text):02d}:{int(g[1] or 0):02d}"
    if kind == "zh-weekday":
        return _ZH_WEEKDAYS[g[0]]
    if kind == "relative":
        return f"{g[0].casefold()}-{g[1].casefold()}"
    if kind == "relative-fr":
        return ("next-" if g[1].casefold().startswith("prochain") else "last-") + {
            "semaine": "week", "mois": "month", "annee": "year"}[g[0].casefold()]
    if kind == "weekday":
        return _WEEKDAYS[g[0].casefold()]
    if kind == "month":
        return f"month-{_MONTHS[g[0].casefold()]:02d}"
    return _PERIODS[g[0].casefold()]


def _cut_dates(text: str) -> tuple[str, list[str]]:
    """Dates and times as canonical tokens, and the text with them blanked."""
    found: list[str] = []
    for pattern, kind in _DATE_RES:
        def blank(match: re.Match[str], kind: str = kind) -> str:
            found.append(_date_token(match, kind))
            return " " * len(match.group())
        text = pattern.sub(blank, text)
    return text, sorted(found)


_THOUSANDS_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")
_SUFFIX_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([kK])\b|(\d)(?=(?:kb|mb|gb|tb|ms|s|min|px|x)\b)",
                        re.IGNORECASE)


def _prepare_numbers(text: str) -> str:
    text = _number_words(_zh_numerals(text))
    text = _THOUSANDS_RE.sub(lambda m: m.group().replace(",", ""), text)

    def suffix(match: re.Match[str]) -> str:
        if match.group(3):  # "8GB" -> "8 GB": the unit is its own word
            return match.group(3) + " "
        value = match.group(1)
        if len(value) > 15:
            return match.group()
        return str(round(float(value) * 1000))
    return _SUFFIX_RE.sub(suffix, text)


def _digits(run: str) -> str:
    """A digit run in ASCII without leading zeros; int() would choke on 5,000 digits."""
    ascii_run = "".join(str(unicodedata.digit(c, 0)) for c in run) if not run.isascii() else run
    return ascii_run.lstrip("0") or "0"


def _canon_number(raw: str) -> str:
    parts = re.split(r"[.,]", raw)
    return ".".join([_digits(parts[0])] + parts[1:])


# --------------------------------------------------------------------------
# Chinese: segments, negation, names.

_ZH_SPLIT = set("的了是在吗呢吧啊呀么着和与及或也都很就还把被给请这那我你他她它们您为")
# Keywords cut finer: without a dictionary, function characters are the
# best word boundaries there are ("部署前先跑测试" -> 部署, 跑测试).
_ZH_KEYWORD_SPLIT = frozenset(_ZH_SPLIT | set("会要能可先再前后每次又才让对从向于以由等所已将该需做去来更最太只"))
_ZH_NEGATION_RE = re.compile(
    r"不要|不用|不能|不会|不是|没有|从不|从来不|不|别|没|无|未|勿|莫|甭|禁止|避免|讨厌|拒绝|非"
)
_ZH_NOT_NEGATION = (
    "不过", "不错", "不同", "不断", "不少", "不久", "不仅", "不管", "不然", "不如", "特别", "区别", "分别",
    "别人", "别的", "级别", "类别", "识别", "告别", "鉴别", "差别", "个别", "性别", "派别", "辨别", "非常",
    "未来", "无论", "无线", "除非", "莫名",
)
_ZH_SYNONYMS = (
    ("比较喜欢", "喜欢"), ("更喜欢", "喜欢"), ("最喜欢", "喜欢"), ("偏好", "喜欢"), ("偏爱", "喜欢"),
    ("使用", "用"), ("采用", "用"), ("运用", "用"), ("通过", "用"), ("回答", "回复"), ("答复", "回复"),
    ("简短", "简洁"),
    ("简洁一点", "简洁"), ("简洁点", "简洁"), ("一点", ""), ("一下", ""), ("一些", ""),
)
_ZH_SURNAMES = set(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范"
    "金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
_ZH_OPPOSITES = (
    ("开启", "关闭"), ("打开", "关闭"), ("启用", "禁用"), ("成功", "失败"), ("增加", "减少"), ("简洁", "详细"),
    ("喜欢", "讨厌"), ("允许", "禁止"), ("生产", "测试"), ("线上", "线下"), ("深色", "浅色"), ("空格", "制表符"),
    ("同步", "异步"), ("公开", "私有"), ("前端", "后端"), ("最大", "最小"), ("输入", "输出"), ("客户端", "服务端"),
    ("开", "关"), ("快", "慢"), ("多", "少"), ("高", "低"), ("新", "旧"), ("长", "短"), ("早", "晚"), ("左", "右"),
    ("真", "假"), ("秒", "分钟"), ("分钟", "小时"), ("秒", "小时"), ("天", "周"), ("周", "月"), ("月", "年"),
)


def _zh_clean(run: str) -> tuple[str, bool]:
    """A CJK run with synonyms folded and negations blanked; was it negated?"""
    for old, new in _ZH_SYNONYMS:
        run = run.replace(old, new)
    negated = False

    def blank(match: re.Match[str]) -> str:
        nonlocal negated
        around = run[max(0, match.start() - 1): match.end() + 1]
        if any(word in around for word in _ZH_NOT_NEGATION):
            return match.group()
        negated = True
        return " "
    return _ZH_NEGATION_RE.sub(blank, run), negated


def _zh_segments(run: str, split: frozenset[str] | set[str] = _ZH_SPLIT) -> list[str]:
    out, current = [], ""
    for ch in run + " ":
        if ch in split or ch == " ":
            if current:
                out.append(current)
            current = ""
        else:
            current += ch
    return out


def _zh_bigrams(segment: str) -> list[str]:
    return [segment] if len(segment) == 1 else [segment[i: i + 2] for i in range(len(segment) - 1)]


def _zh_name(segment: str, source: str, start: int) -> bool:
    """Does a swapped Chinese segment look like (part of) a person's name?"""
    before = source[start - 1] if start else ""
    if len(segment) <= 2 and before and (before in "小老阿" or before in _ZH_SURNAMES):
        return True  # 小明/小红, 张三/张四: the given name changed
    return len(segment) <= 3 and segment[0] in _ZH_SURNAMES  # 张伟/李娜, 王经理/李经理


# --------------------------------------------------------------------------
# Features of one text, computed once and cached: find_duplicate compares a
# new text with ~50 candidates on every `remember`.


@dataclass(frozen=True)
class _Features:
    tokens: frozenset[str]  # stems, CJK bigrams, numbers, dates: the token view
    grams: frozenset[str]  # character trigrams and CJK characters: the spelling view
    forms: frozenset[str]  # every canonical word, stop words included
    strong: frozenset[str]
    weak: frozenset[str]
    dates: tuple[str, ...]
    numbers: tuple[str, ...]
    digits: tuple[str, ...]
    negation: str  # the first negation marker, "" when none
    cjk: str  # CJK text, for aligned substitutions
    empty_key: str


def _strip_triggers(folded: str) -> str:
    return _TRIGGER_RE.sub(lambda m: " " * len(m.group()), folded)


_PHRASE_RES = tuple((re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), canonical) for pattern, canonical in _PHRASES)
_TRIGGER_RE = re.compile(_EXPLICIT_TRIGGERS, re.IGNORECASE)


def _phrases(text: str) -> str:
    for pattern, canonical in _PHRASE_RES:
        text = pattern.sub(canonical, text)
    return text


@functools.lru_cache(maxsize=4096)
def _features(text: str) -> _Features:
    folded = _phrases(_strip_triggers(_fold(text)))
    folded = _prepare_numbers(folded)
    undated, dates = _cut_dates(folded)
    numbers: list[str] = []
    tokens: set[str] = set()
    grams: set[str] = set()
    forms: set[str] = set()
    strong: set[str] = set()
    weak: set[str] = set()
    negation = ""
    for word, low in _latin_words(undated):
        forms.update((word.form, word.stem, low))
        if low in _NEGATIONS and not negation:
            negation = "not" if low in ("n", "ne") else low
        if _IS_NUMBER.fullmatch(word.form):
            numbers.append(_canon_number(word.form))
        if word.name == "strong":
            strong.add(word.form)
        elif word.name == "weak":
            weak.add(word.form)
        if word.content:
            tokens.add(word.stem)
            padded = f" {word.form} "
            grams.update(padded[i: i + 3] for i in range(len(padded) - 2))
    cjk_parts: list[str] = []
    for match in _TOKEN_RE.finditer(undated):
        if match.group("cjk"):
            cleaned, negated = _zh_clean(match.group("cjk"))
            if negated and not negation:
                negation = "不"
            cjk_parts.append(cleaned)
            for segment in _zh_segments(cleaned):
                tokens.update(_zh_bigrams(segment))
                grams.update(segment)
    tokens.update(f"@{d}" for d in dates)
    grams.update(f"@{d}" for d in dates)
    digits = sorted(_digits(d) for d in re.findall(r"\d+", undated))
    key = " ".join(folded.casefold().split())
    return _Features(frozenset(tokens), frozenset(grams), frozenset(forms), frozenset(strong),
                     frozenset(weak), tuple(dates), tuple(sorted(numbers)), tuple(digits), negation,
                     " ".join(cjk_parts), key)


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def _explained(token: str, others: frozenset[str], other_text: str) -> bool:
    """Is an unmatched token a variant of one on the other side, not a new word?"""
    if not token.isascii() and all(ch in other_text for ch in token):
        return True  # a Chinese bigram cut differently by reordered words
    for other in others:
        short, long_ = sorted((token, other), key=len)
        if len(short) >= 3 and (short in long_ or token[:4] == other[:4]):
            return True  # "reach"/"reachabl", "bas"/"databas", "decid"/"decision"
    return False


def _substituted(fa: _Features, fb: _Features) -> bool:
    """Did a word on one side replace an unrelated word on the other?"""
    left, right = fa.tokens - fb.tokens, fb.tokens - fa.tokens
    new_left = any(not _explained(t, right, fb.cjk) for t in left)
    new_right = any(not _explained(t, left, fa.cjk) for t in right)
    return new_left and new_right


def similarity(a: str, b: str) -> float:
    """Lexical similarity of two texts in [0, 1], symmetric, 1.0 for equal texts.

    A blend of word overlap (stemmed, stop words and remember-phrases dropped,
    Chinese as character bigrams) and spelling overlap (character trigrams),
    so reordered words, filler words and inflections cost little. A word
    swapped for an unrelated one ("importer" vs "exporter") costs more than a
    word added, because a swap usually states a different fact.
    """
    fa, fb = _features(a), _features(b)
    if not fa.tokens and not fb.tokens:
        return 1.0 if fa.empty_key == fb.empty_key else 0.0
    if not fa.tokens or not fb.tokens:
        return 0.0
    score = _TOKEN_WEIGHT * _dice(fa.tokens, fb.tokens) + (1 - _TOKEN_WEIGHT) * _dice(fa.grams, fb.grams)
    if _substituted(fa, fb):
        score *= 1 - _SWAP_PENALTY
    return max(0.0, min(1.0, score))


def _show(values: Iterable[str]) -> str:
    return ", ".join(sorted(values)) or "none"


def _multiset_diff(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[list[str], list[str]]:
    ca, cb = Counter(a), Counter(b)
    return sorted((ca - cb).elements()), sorted((cb - ca).elements())


def _opposites(fa: _Features, fb: _Features) -> str | None:
    for x, y in _ANTONYM_STEMS:
        for p, q in ((x, y), (y, x)):
            if p in fa.forms and q in fb.forms and p not in fb.forms and q not in fa.forms:
                return f"{p} vs {q}"
    for x, y in _ZH_OPPOSITES:
        for p, q in ((x, y), (y, x)):
            if p in fa.cjk and q in fb.cjk and p not in fb.cjk and q not in fa.cjk:
                return f"{p} vs {q}"
    return None


def _zh_names(fa: _Features, fb: _Features) -> str | None:
    matcher = difflib.SequenceMatcher(None, fa.cjk, fb.cjk, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        left, right = fa.cjk[i1:i2].strip(), fb.cjk[j1:j2].strip()
        if left and right and _zh_name(left, fa.cjk, i1) and _zh_name(right, fb.cjk, j1):
            return f"{left} vs {right}"
    return None


def _names(fa: _Features, fb: _Features) -> str | None:
    left_strong, right_strong = fa.strong - fb.forms, fb.strong - fa.forms
    left_weak, right_weak = fa.weak - fb.forms, fb.weak - fa.forms
    # A name only one side has is new information (a second owner, another
    # tool); two different weak names (sentence-initial capitals) are a swap.
    if left_strong or right_strong or (left_weak and right_weak):
        left, right = left_strong | left_weak, right_strong | right_weak
        if (left | right) <= _UNITS:
            return f"number differs: unit {_show(left)} vs {_show(right)}"
        return f"name differs: {_show(left)} vs {_show(right)}"
    zh_name = _zh_names(fa, fb)
    return f"name differs: {zh_name}" if zh_name else None


def conflict(a: str, b: str) -> str | None:
    """Why two texts must not be merged even if they look alike, or None.

    Reasons start with "date differs", "number differs", "negation differs"
    or "name differs", followed by the differing values, e.g.
    ``"number differs: 5432 vs 5433"``.
    """
    fa, fb = _features(a), _features(b)
    if fa.dates != fb.dates:
        left, right = _multiset_diff(fa.dates, fb.dates)
        return f"date differs: {_show(left)} vs {_show(right)}"
    if fa.numbers != fb.numbers:
        left, right = _multiset_diff(fa.numbers, fb.numbers)
        return f"number differs: {_show(left)} vs {_show(right)}"
    if bool(fa.negation) != bool(fb.negation):
        return f"negation differs: {fa.negation or 'none'} vs {fb.negation or 'none'}"
    opposite = _opposites(fa, fb)
    if opposite:
        return f"negation differs: {opposite}"
    names = _names(fa, fb)
    if names:
        return names
    if fa.digits != fb.digits:  # digits inside words: "v2" vs "v3", "s3"
        left, right = _multiset_diff(fa.digits, fb.digits)
        return f"number differs: {_show(left)} vs {_show(right)}"
    return None


def is_duplicate(a: str, b: str, threshold: float = DUPLICATE_THRESHOLD) -> bool:
    """True when ``b`` restates ``a``: similar enough and no conflict."""
    return similarity(a, b) >= threshold and conflict(a, b) is None


def find_duplicate(
    text: str, candidates: Iterable[tuple[str, str]], threshold: float = DUPLICATE_THRESHOLD
) -> str | None:
    """The id of the candidate that ``text`` duplicates best, or None.

    ``candidates`` are (id, text) pairs; ties go to the earliest candidate.
    """
    best_id, best_score = None, threshold
    for cand_id, cand_text in candidates:
        score = similarity(text, cand_text)
        better = best_id is None or score > best_score
        if score >= best_score and better and conflict(text, cand_text) is None:
            best_id, best_score = cand_id, score
    return best_id


# --------------------------------------------------------------------------
# Scoring and classification.

_RULES: tuple[tuple[float, str, re.Pattern[str]], ...] = (
    (0.9, "explicit request to remember", _EXPLICIT_RE),
    (0.85, "emotional content", _EMOTION_RE),
    (0.8, "preference", _PREFERENCE_RE),
    (0.75, "decision", _DECISION_RE),
    (0.7, "fact about a person or project", _PERSON_PROJECT_RE),
)


def _matches(text: str) -> list[tuple[float, str, str]]:
    folded = _fold(text)
    lowered = folded.casefold()
    found = []
    for score, name, pattern in _RULES:
        match = pattern.search(lowered)
        if match:
            found.append((score, name, match.group().strip(" :-*>\"'")))
    if not any(name.startswith("fact") for _, name, _ in found):
        person = _PERSON_CASED_RE.search(folded)
        if person:
            found.append((0.7, "fact about a person or project", person.group().strip()))
        elif _PROJECT_RE.search(lowered):
            found.append((0.7, "fact about a person or project", "project terms"))
    return found


def importance(text: str) -> tuple[float, str]:
    """Initial importance of a text and the rule that gave it.

    Explicit "remember this" 0.9, emotional 0.85, preference 0.8, decision
    0.75, fact about a person or project 0.7, anything else 0.5; the highest
    matching rule wins. Trigger phrases are recognised in English, French and
    Chinese.
    """
    found = _matches(text)
    if not found:
        return 0.5, "general knowledge"
    score, name, phrase = max(found, key=lambda f: f[0])
    return score, f'{name} ("{phrase}")'


def _memory_type(text: str, found: list[tuple[float, str, str]]) -> MemoryType:
    lowered = _fold(text).casefold()
    if _PATTERN_RE.search(lowered):
        return "pattern"
    if _REFLECTION_RE.search(lowered):
        return "reflection"
    if _ERROR_RE.search(lowered):
        return "error"
    by_rule: dict[str, MemoryType] = {
        "emotional content": "emotion", "preference": "preference", "decision": "decision"}
    ranked = sorted((f for f in found if f[1] in by_rule), key=lambda f: -f[0])
    if ranked:
        return by_rule[ranked[0][1]]
    if _SKILL_RE.search(lowered):
        return "skill"
    return "fact"


def _domain(text: str, memory_type: MemoryType) -> Domain:
    lowered = _fold(text).casefold()
    if _SELF_RE.search(lowered):
        return "self"
    if _RELATIONSHIP_RE.search(lowered):
        return "relationship"
    about_user = bool(_USER_RE.search(lowered))
    if about_user and (memory_type in ("preference", "emotion") or _PERSONAL_RE.search(lowered)):
        return "user"
    if _POSSESSIVE_RE.search(_fold(text)):
        return "user"  # "Andy's GitHub account": a fact about a person
    if _PROJECT_RE.search(lowered) or any(w.name == "strong" and w.form in _NAMED for w, _ in
                                          _latin_words(_fold(text))):
        return "project"
    return "user" if about_user else "world"


def keywords(text: str, limit: int = 8) -> tuple[str, ...]:
    """Up to ``limit`` lowercase content words of ``text``, most frequent first.

    Stop words (English and French), remember-phrases and short numbers are
    dropped; identifiers such as ``config.yaml`` stay whole; Chinese runs are
    cut at particles and kept whole up to four characters, longer ones as
    character bigrams.
    """
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}

    def add(word: str) -> None:
        counts[word] += 1
        order.setdefault(word, len(order))

    for match in _TOKEN_RE.finditer(_strip_triggers(_nfkc(text))):
        if match.group("cjk"):
            cleaned, _ = _zh_clean(match.group("cjk"))
            for segment in _zh_segments(cleaned, _ZH_KEYWORD_SPLIT):
                for piece in [segment] if len(segment) <= 4 else _zh_bigrams(segment):
                    if len(piece) > 1:
                        add(piece)
            continue
        for word, surface in _latin_words(match.group()):
            if word.content and len(surface) > 1 and not (surface.isdigit() and len(surface) < 3):
                add(surface)
    ranked = sorted(counts, key=lambda w: (-counts[w], order[w]))
    return tuple(ranked[: max(0, limit)])


def encode(text: str) -> Encoding:
    """Importance (with its reason), type, domain and keywords of a new memory."""
    found = _matches(text)
    score, reason = importance(text)
    memory_type = _memory_type(text, found)
    return Encoding(score, reason, memory_type, _domain(text, memory_type), keywords(text))
