"""Word tables of the encode and similarity engines, English, French and Chinese.

Accent-free and lowercase, because texts are folded the same way before
look-up ("préfère" and "prefere" must meet). Pure data, no logic: which words
name things, negate, count, mean the same; month and weekday names; Chinese
surnames and opposites. The stop lists and the Chinese function characters
are the text toolkit's (``gitmem.base.text.stops``).
"""

from __future__ import annotations


def _words(line: str) -> frozenset[str]:
    return frozenset(line.split())


# Words that are never names even when capitalized ("Deploy on Friday").
VERBS = _words(
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
NEGATIONS = _words(
    "not no never none nothing nobody nowhere neither nor without cannot anymore avoid avoids avoided"
    " avoiding dislike dislikes disliked hate hates hated refuse refuses refused forbid forbids"
    " forbidden prohibit prohibited disallow disallowed ne pas jamais aucun aucune rien sans non"
    " evite eviter evitez deteste detestes detester"
)
EN_NUMBERS = {
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
NUMBER_GLUE = {"one": 1, "un": 1, "une": 1, "and": 0, "et": 0}
SYNONYMS = {
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
PHRASES = (
    (r"pull[- ]requests?|merge[- ]requests?", "pr"),
    (r"continuous integration", "ci"),
    (r"bases? de donn[ée]es|data ?bases?", "database"),
    (r"tim(?:ed|es|ing)? out", "timeout"),
    (r"(?:would|'d) rather", "prefer"),
    (r"(?:no|not) (?:more|longer) than", "at most"),
    (r"(?:no|not) (?:less|fewer) than", "at least"),
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
NAMED = _words(
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
UNITS = _words("minute second hour day week month year ms kb mb gb tb %")
ANTONYMS = (
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
    ("into", "from"), ("onto", "from"), ("to", "from"), ("import", "export"), ("push", "pull"),
    ("upload", "download"), ("vers", "depuis"),
)
EXPLICIT_TRIGGERS = (
    r"(?:please |pls )?remember(?: (?:this|that))?\b:?"
    r"|(?:please )?(?:don'?t|do not|never) forget(?: (?:this|that))?\b:?"
    r"|keep in mind(?: that)?|make a note(?: that)?|note to self:?"
    r"|reti(?:ens|enez)(?: bien)?(?: (?:que|ceci|ca)\b)?:?|n'?oubli(?:e|ez) (?:pas|jamais)(?: (?:que|de)\b)?:?"
    r"|souvien[st][- ](?:toi|vous)(?: (?:que|de)\b)?|souvenez[- ]vous(?: (?:que|de)\b)?"
    r"|rappelle[- ]toi(?: que\b)?|garde(?:z)? (?:bien )?en (?:t[eê]te|m[eé]moire)(?: que\b)?"
    r"|请?记住|别忘了|别忘记|不要忘记|不要忘了|千万别忘|请记得|记得|牢记|记一下|记下来"
)
ELISIONS = {"l": "", "d": "", "j": "je", "m": "", "t": "", "s": "", "n": "ne", "c": "", "qu": "",
             "jusqu": "", "lorsqu": "", "puisqu": ""}


ZH_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3,
    "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "aout": 8,
    "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
}
MONTH_ALONE = _words(
    "january february april june july august september october november december"
    " janvier fevrier avril juin juillet aout septembre octobre novembre decembre"
)
WEEKDAYS = {
    "monday": "monday", "tuesday": "tuesday", "wednesday": "wednesday", "thursday": "thursday",
    "friday": "friday", "saturday": "saturday", "sunday": "sunday", "lundi": "monday", "mardi": "tuesday",
    "mercredi": "wednesday", "jeudi": "thursday", "vendredi": "friday", "samedi": "saturday",
    "dimanche": "sunday",
}
ZH_WEEKDAYS = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
                "六": "saturday", "日": "sunday", "天": "sunday", "1": "monday", "2": "tuesday",
                "3": "wednesday", "4": "thursday", "5": "friday", "6": "saturday", "7": "sunday"}


PERIODS = {
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
ZH_HOUR_SHIFT = {"下午": 12, "晚上": 12}
ZH_NOT_NEGATION = (
    "不过", "不错", "不同", "不断", "不少", "不久", "不仅", "不管", "不然", "不如", "特别", "区别", "分别",
    "别人", "别的", "级别", "类别", "识别", "告别", "鉴别", "差别", "个别", "性别", "派别", "辨别", "非常",
    "未来", "无论", "无线", "除非", "莫名",
)
ZH_SYNONYMS = (
    ("比较喜欢", "喜欢"), ("更喜欢", "喜欢"), ("最喜欢", "喜欢"), ("偏好", "喜欢"), ("偏爱", "喜欢"),
    ("使用", "用"), ("采用", "用"), ("运用", "用"), ("通过", "用"), ("回答", "回复"), ("答复", "回复"),
    ("简短", "简洁"),
    ("简洁一点", "简洁"), ("简洁点", "简洁"), ("一点", ""), ("一下", ""), ("一些", ""),
)
ZH_SURNAMES = set(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范"
    "金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
ZH_OPPOSITES = (
    ("开启", "关闭"), ("打开", "关闭"), ("启用", "禁用"), ("成功", "失败"), ("增加", "减少"), ("简洁", "详细"),
    ("喜欢", "讨厌"), ("允许", "禁止"), ("生产", "测试"), ("线上", "线下"), ("深色", "浅色"), ("空格", "制表符"),
    ("同步", "异步"), ("公开", "私有"), ("前端", "后端"), ("最大", "最小"), ("输入", "输出"), ("客户端", "服务端"),
    ("开", "关"), ("快", "慢"), ("多", "少"), ("高", "低"), ("新", "旧"), ("长", "短"), ("早", "晚"), ("左", "右"),
    ("真", "假"), ("秒", "分钟"), ("分钟", "小时"), ("秒", "小时"), ("天", "周"), ("周", "月"), ("月", "年"),
)


# Quantifiers, frequencies and modals: "at most 3" and "at least 3", "always"
# and "sometimes", "must" and "may" state different rules. Phrase -> its
# family and canonical value (accent-free, matched case-insensitively on word
# boundaries; Chinese ones anywhere).
QUANTIFIERS = {
    "at most": ("bound", "at-most"), "no more than": ("bound", "at-most"), "not more than": ("bound", "at-most"),
    "no longer than": ("bound", "at-most"), "maximum of": ("bound", "at-most"), "max": ("bound", "at-most"),
    "at least": ("bound", "at-least"), "no less than": ("bound", "at-least"),
    "no fewer than": ("bound", "at-least"), "not less than": ("bound", "at-least"),
    "minimum of": ("bound", "at-least"), "exactly": ("bound", "exactly"), "only": ("bound", "only"),
    "more than": ("bound", "more"),
    "fewer than": ("bound", "less"), "less than": ("bound", "less"), "up to": ("bound", "at-most"),
    "more": ("degree", "more"), "less": ("degree", "less"), "fewer": ("degree", "less"),
    "all": ("scope", "all"), "every": ("scope", "all"), "each": ("scope", "all"), "any": ("scope", "any"),
    "some": ("scope", "some"), "most": ("scope", "most"), "many": ("scope", "many"),
    "few": ("scope", "few"), "several": ("scope", "several"), "both": ("scope", "both"),
    "none": ("scope", "none"), "certain": ("scope", "some"), "either": ("scope", "either"),
    "always": ("frequency", "always"), "usually": ("frequency", "usually"),
    "generally": ("frequency", "usually"), "typically": ("frequency", "usually"),
    "normally": ("frequency", "usually"), "mostly": ("frequency", "usually"), "often": ("frequency", "often"),
    "frequently": ("frequency", "often"), "sometimes": ("frequency", "sometimes"),
    "occasionally": ("frequency", "sometimes"), "rarely": ("frequency", "rarely"),
    "seldom": ("frequency", "rarely"), "hardly ever": ("frequency", "rarely"),
    "must": ("modal", "must"), "have to": ("modal", "must"), "has to": ("modal", "must"),
    "need to": ("modal", "must"), "needs to": ("modal", "must"), "required to": ("modal", "must"),
    "should": ("modal", "should"), "ought to": ("modal", "should"), "may": ("modal", "may"),
    "might": ("modal", "may"), "could": ("modal", "may"), "can": ("modal", "can"),
    "able to": ("modal", "can"), "allowed to": ("modal", "can"),
    "au plus": ("bound", "at-most"), "au maximum": ("bound", "at-most"), "au moins": ("bound", "at-least"),
    "exactement": ("bound", "exactly"), "seulement": ("bound", "only"), "uniquement": ("bound", "only"),
    "tous": ("scope", "all"), "toutes": ("scope", "all"), "chaque": ("scope", "all"),
    "quelques": ("scope", "some"), "certains": ("scope", "some"), "certaines": ("scope", "some"),
    "la plupart": ("scope", "most"), "plusieurs": ("scope", "several"),
    "toujours": ("frequency", "always"), "d'habitude": ("frequency", "usually"),
    "habituellement": ("frequency", "usually"), "generalement": ("frequency", "usually"),
    "souvent": ("frequency", "often"), "parfois": ("frequency", "sometimes"),
    "rarement": ("frequency", "rarely"), "doit": ("modal", "must"), "doivent": ("modal", "must"),
    "dois": ("modal", "must"), "devez": ("modal", "must"), "faut": ("modal", "must"),
    "devrait": ("modal", "should"), "devrais": ("modal", "should"), "devriez": ("modal", "should"),
    "devraient": ("modal", "should"), "peut": ("modal", "can"), "peux": ("modal", "can"),
    "peuvent": ("modal", "can"), "pouvez": ("modal", "can"),
    "最多": ("bound", "at-most"), "至多": ("bound", "at-most"), "不超过": ("bound", "at-most"),
    "至少": ("bound", "at-least"), "不少于": ("bound", "at-least"), "只": ("bound", "only"),
    "所有": ("scope", "all"), "全部": ("scope", "all"), "每个": ("scope", "all"), "一些": ("scope", "some"),
    "有些": ("scope", "some"), "部分": ("scope", "some"), "大部分": ("scope", "most"),
    "大多数": ("scope", "most"), "总是": ("frequency", "always"), "始终": ("frequency", "always"),
    "一直": ("frequency", "always"), "通常": ("frequency", "usually"), "一般": ("frequency", "usually"),
    "经常": ("frequency", "often"), "常常": ("frequency", "often"), "有时": ("frequency", "sometimes"),
    "偶尔": ("frequency", "sometimes"), "很少": ("frequency", "rarely"), "必须": ("modal", "must"),
    "务必": ("modal", "must"), "一定要": ("modal", "must"), "应该": ("modal", "should"),
    "应当": ("modal", "should"), "可以": ("modal", "can"), "可能": ("modal", "may"),
}
# Values a statement may add or drop without changing its rule: "always run
# the tests" is "run the tests", "all changes need review" is "changes need
# review". Two different values of one family still differ ("must" vs "should").
QUANTIFIER_DEFAULTS = frozenset(("always", "all", "any", "must", "should", "exactly"))

# Words whose two sides play different roles: "copy production to staging" is
# not "copy staging to production", "A calls B" is not "B calls A". Lowercase,
# accent-free token sequences; the words around them are the two roles.
ROLE_MARKERS = tuple(tuple(m.split()) for m in (
    "to", "from", "into", "onto", "towards", "over", "than", "before", "after", "instead of", "rather than",
    "in favor of", "in favour of", "vs", "versus", "->", "=>", ">", "<", ">=", "<=", "<-", "then", ", not",
    "calls", "call", "called", "invokes", "invoke", "depends on", "depend on", "depending on",
    "relies on", "rely on", "imports", "import", "requires", "require", "extends", "extend", "inherits from",
    "inherit from", "wraps", "wrap", "replaces", "replace", "replaced", "overrides", "override", "precedes",
    "follows", "beats", "outranks", "supersedes", "uses", "use", "owns", "manages", "reports to", "sends",
    "send", "feeds", "triggers", "trigger", "blocks", "block", "includes", "contains", "points to",
    "redirects", "redirect", "links to", "subscribes to", "publishes to", "mirrors", "reads", "writes",
    "vers", "dans", "avant", "apres", "plutot que", "au lieu de", "que", "depuis", "appelle", "appellent",
    "depend de", "remplace", "utilise",
))
ZH_ROLE_MARKERS = ("到", "比", "而不是", "而非", "调用", "依赖", "之前", "之后", "先于", "替换", "改成", "改为", "变成", "优先于", "胜过")
