"""Stop lists: the words and characters that carry grammar rather than topic, each list named for its use.

- ``STOP_WORDS`` (``ENGLISH_STOP_WORDS | FRENCH_STOP_WORDS``): what recall drops
  from a query and the index keeps out of its terms.
- ``STATEMENT_STOP`` / ``STATEMENT_STOP_FR``: what the comparison of two memory
  statements ignores: the shared list less ``FACT_WORDS`` (words that carry
  a statement's fact: when, how much, negation), plus ``FILLER``.
- ``CLAUSE_STOPS``: the words that end a clause, where a role stops.
- ``CJK_STOP_CHARS``: Chinese grammar characters; a query bigram of only
  these is dropped like a stop word.
- ``ZH_FUNCTION_CHARS`` / ``ZH_KEYWORD_SPLIT``: Chinese function characters,
  the word boundaries of a dictionary-free segmentation (the second cuts
  keywords finer).

All folded: lower-case and accent-free, as ``words`` gives them.
"""

from __future__ import annotations

__all__ = ["CJK_STOP_CHARS", "CLAUSE_STOPS", "ENGLISH_STOP_WORDS", "FACT_WORDS", "FILLER", "FILLER_FR",
           "FRENCH_STOP_WORDS", "STATEMENT_STOP", "STATEMENT_STOP_FR", "STOP_WORDS", "ZH_FUNCTION_CHARS",
           "ZH_KEYWORD_SPLIT"]


def _words(line: str) -> frozenset[str]:
    return frozenset(line.split())


# English function words plus the question words and auxiliaries a person
# types when asking ("when did", "what was"). Questions are where recall
# queries come from, and these words carry no topic.
ENGLISH_STOP_WORDS = frozenset(
    """
    a about above after again against ago all almost already also am an and any are
    around as at away be because been before being below between both but by can
    could did do does doing done down during each either else even ever every few
    for from further get gets got had has have having he her here hers herself
    him himself his how i if in into is it its itself just least less let lets
    like ll many may me might mine more most much must my myself neither never
    no nor not now of off often on once only onto or other others ought our ours
    ourselves out over own per quite rather re really s same several shall
    she should since so some still such t than that the their theirs them themselves
    then there these they this those though through thru thus to too toward towards
    under until up upon us use used using ve very via was we were what whatever
    when whenever where whereas wherever whether which while who whoever whom
    whose why will with within without would yet you your yours yourself
    yourselves
    d m o y isn aren wasn weren don doesn didn hasn haven hadn won wouldn
    shouldn couldn cannot mustn
    """.split()
)

# French function words, folded: users write memories and questions in French
# too. "car" and "ai" are left out, English topic words first ("car", "AI");
# "son", "ton" and "comment" stay, as recall has always dropped them (made
# topic words, "son" cost two questions of the LoCoMo dev split their rank).
FRENCH_STOP_WORDS = frozenset(
    """
    alors au aussi aux avait avez avec avons bien c ca ce ceci cela ces cet cette
    chaque chez comme d dans de des deja donc dont du elle elles en encore entre es
    est et etaient etait ete etes etre eu il ils j je juste l la le les leur leurs lui
    ma mais me meme mes moi mon n ne ni nos notre nous on ont ou par pas pour pourquoi
    puis qu quand que quel quelle quelles quels qui quoi s sa se ses si sommes sont
    sous suis sur ta te tes toi tous tout toute toutes tres tu un une vers vos votre
    vous y son ton comment
    """.split()
)

STOP_WORDS = ENGLISH_STOP_WORDS | FRENCH_STOP_WORDS

# Single characters that carry grammar rather than topic in Chinese; a query
# bigram made only of them ("我的", "是不") is dropped like a stop word.
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那有和与就也都不吗呢吧啊个之")

# Words a memory statement carries besides its fact: requests, hedges,
# filler, the word "user" itself, and French function words the shared list
# leaves out because they are English topic words too ("car", "ai"). They are
# no topic to compare memories by, though a recall query may ask for them.
FILLER = _words(
    "actually always anyway asap basically btw currently etc find fixme found fyi generally happen happens"
    " happened hint important importantly keep kept kindly make note noted ok okay please ps remind"
    " reminder simply sure tip todo user usually well nb"
)
FILLER_FR = _words(
    "ai car fait faut il plait plus sa simplement son stp svp ton toujours trouve utilisateur"
    " utilisatrice vraiment a as"
)
# Words of the shared stop list that the comparison keeps as content, as it
# always has: in a statement they carry the fact, though not the topic of a
# question: when ("before", "since"), how much ("many", "once"), negation
# ("never", "won't" -> "won"), and who, for the reflexive pronouns (dropping
# these from the keywords cost the LoCoMo dev split 0.005 MRR@10).
FACT_WORDS = _words(
    "above after against ago almost around before below between during either further least like"
    " many much often once quite rather several since though thus toward towards until upon use used"
    " within without cannot neither never no nor not aren couldn didn doesn don hadn hasn haven isn"
    " mustn shouldn wasn weren won wouldn herself himself itself ourselves themselves yourself yourselves"
)
# The stop words of the comparison: the shared English and French list less
# the fact words, and the filler above. An accented word is only ever a
# French stop word ("thé" is not "the").
STATEMENT_STOP = (STOP_WORDS - FACT_WORDS) | FILLER | FILLER_FR
STATEMENT_STOP_FR = FRENCH_STOP_WORDS | FILLER_FR

# Words that end a role: clause boundaries.
CLAUSE_STOPS = frozenset("and but or because if when while so although unless et mais ou parce quand si".split())

# Chinese function characters: the word boundaries there are without a dictionary.
ZH_FUNCTION_CHARS = frozenset("的了是在吗呢吧啊呀么着和与及或也都很就还把被给请这那我你他她它们您为")
# Keywords cut finer ("部署前先跑测试" -> 部署, 跑测试).
ZH_KEYWORD_SPLIT = frozenset(ZH_FUNCTION_CHARS | set("会要能可先再前后每次又才让对从向于以由等所已将该需做去来更最太只"))
