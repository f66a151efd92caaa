"""The words of tool search: identifiers split, common words dropped, irregular forms read as their plain
form and a light stemmer, set phrases and question forms read for what they mean, values read as their
kind, and a small table of the words people use in requests for the words tools are described with.

The tables are generic on purpose: each line of the word table is a meaning (a verb or a kind of thing
tools act on) with the everyday words for it, and each phrase is an English idiom ("throw away", "no
longer", "where is"), not a list of request phrasings. They were written from general English and the
words tools commonly use, and checked against the tuning sets of ``benchmarks/search_catalogs`` only,
never the held-out ones. A request's own words count fully; the related words they bring count
:data:`RELATED_WEIGHT` as much, so a tool named with the user's own word wins over one that only shares a
synonym.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP_WORDS = ("a an and are as at be by can do does for from get give i in into is it its me my need of on or "
               "please some that the their them there these this to up use using want was what when where which "
               "who will with would you your all any about how much s t also just let lets ll ve re d m "
               "everything anything something nothing every thing things stuff one ones have has had been "
               "am we us our he she his her him they then than so if not no yes now here over out again "
               "very really could should may might must shall tell isn aren wasn weren don doesn didn won wouldn "
               "shouldn couldn haven hasn hadn")
STOP = frozenset(_STOP_WORDS.split(" "))
RELATED_WEIGHT = 0.7

# meaning: everyday words for it (each word gets the others as related words, query side only)
_GROUPS = """
create: create make new add build generate insert register setup mkdir touch post
store: store save remember record jot write persist create add
delete: delete remove erase drop forget destroy discard purge prune wipe clear trash rm del unlink
update: update change edit modify alter replace fix set adjust patch
read: read open view show display print see contents content text cat inspect peek retrieve
list: list show enumerate browse inventory listing ls dump
search: search find look lookup locate query seek match grep
move: move rename relocate transfer mv
send: send email mail post message notify deliver
mail: email mail mailbox inbox
switch: switch checkout hop go jump change
history: history log logs past previous recent commits
stage: stage add index staging
unstage: unstage reset undo restore discard
diff: diff difference differences compare changes changed modified delta differ different
status: status state modified changed uncommitted dirty pending
repeat: repeat echo say parrot back
sum: sum add plus total addition adding arithmetic calculate
image: image picture photo pic logo png jpg screenshot media icon graphic thumbnail
environment: environment env variables variable vars config
web: web page website site url link http https internet online article download grab fetch scrape
  blog wiki homepage html
time: time clock hour hours now current date day timezone zone o'clock morning night moment today
  pm utc gmt noon midnight evening afternoon tonight
convert: convert translate conversion equivalent
folder: folder directory dir subfolder subdirectory mkdir
multiple: multiple several both batch bulk many
whole: whole entire complete full
commit: commit checkpoint snapshot save
branch: branch fork
file: file document doc
repository: repository repo git
tree: tree structure hierarchy nested recursive overview layout outline
size: size big large bytes biggest largest smallest
metadata: metadata info information details stat stats permissions
person: person people someone entity entities contact node nodes who profile everyone everybody anyone
  anybody somebody
fact: fact facts observation observations detail details preference preferences note notes prefer likes
  favorite favourite dislikes hates loves
relation: relation relations relationship link links connection connected between married marry friend friends
  manager boss colleague coworker partner spouse wife husband sister brother sibling parent mother father son
  daughter child cousin
memory: memory remember recall knowledge graph forget know known knows memorize memorise learn
allowed: allowed permitted access accessible allow
wait: wait slow long delay sleep progress running simulate
log: logging log logs messages
compress: compress zip gzip archive
copy: copy duplicate clone
reply: reply respond answer
restore: restore undo revert rollback recover
run: run start launch begin execute trigger invoke
stop: stop halt pause terminate kill shutdown
cancel: cancel abort
schedule: schedule plan book arrange appointment meeting event calendar
upload: upload push publish
download: download export
merge: merge combine join unify consolidate
assign: assign grant allocate
approve: approve accept confirm
reject: reject decline deny refuse
price: price cost rate quote fee
invoice: bill invoice charge payment pay
refund: refund reimburse money
bug: bug issue ticket problem defect crash error
weather: weather rain forecast temperature sunny snow wind
route: route directions drive driving walk walking navigate distance commute
language: language translate translation
spreadsheet: spreadsheet workbook worksheet sheet tab excel
chart: chart graph plot diagram visualize visualise
format: format highlight style colour color bold
count: count number total tally
location: location coordinates latitude longitude geocode address
elevation: elevation altitude height
type: type enter input fill keyboard
comment: comment remark annotate
fork: fork clone copy
"""

RELATED: dict[str, tuple[tuple[str, ...], ...]] = {}  # word -> the meaning groups it belongs to
# things in a request that name a kind of argument: a URL, a file name, an e-mail address
_SHAPES = ((re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.I), " url web page "),
           (re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b"), " email address "),
           (re.compile(r"(?<!\w)(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*/?"), " path "),
           (re.compile(r"(?<![\w/.@])(?:[\w-]+\.)+(?:com|org|net|io|dev|ai|app|co|edu|gov|info|biz|us|uk|de|fr|eu|xyz)"
                       r"\b(?!\.\w)(?:/\S*)?"), " url domain "),
           (re.compile(r"(?<![\w/.])[\w-]+\.[a-z][a-z0-9]{0,4}\b(?!\.\w)"), " file "),
           (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,40}\b"), " revision commit "),
           (re.compile(r"\b(called|named|titled)\s+\S+", re.I), " name "),
           (re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:[-+*/x]|and|plus|minus|times|divided by|over)\s*"
                       r"\d+(?:\.\d+)?(?![\w.:/])"), " arithmetic "),
           (re.compile(r"\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)"), " "))


# phrasal verbs and set phrases of everyday English whose meaning is not in their words ("throw away" is
# neither throwing nor away), and question forms that ask for a kind of action ("how many" asks to count)
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"throw(?:s|ing)? away|throw(?:s|ing)? out|threw (?:away|out)|get(?:ting)? rid of|got rid of", "discard"),
    (r"clean(?:s|ing|ed)? up|wipe(?:s|d)? out|cross(?:es|ed)? out|scrap(?:s|ped)?", "delete"),
    (r"no longer|any ?more|stopped being", "delete remove"),
    (r"look(?:s|ing|ed)? (?:up|for)|hunt(?:s|ing)? (?:for|down)|track(?:s|ing)? down|dig(?:s|ging)? up", "search"),
    (r"find(?:s|ing)? out", "search"),
    (r"look(?:s|ing|ed)? (?:at|into|over|inside)|peek(?:s|ing)? (?:at|into|inside)|pull(?:s|ing|ed)? up|"
     r"bring(?:s|ing)? up|brought up", "read view"),
    (r"where (?:is|are|was|were|did|do|does|can)|where's|whereabouts", "+search"),
    (r"who (?:can|may|is allowed to) (?:read|write|open|edit|access|see|change)", "permissions"),
    (r"who (?:is|was|are|were)|who's", "+search person"),
    (r"how old|how recent|how new", "info modified"),
    (r"(?:what's|what is|what was|what has been) (?:written|said|stored|saved|typed) (?:in|on|inside)", "read"),
    (r"check(?:s|ed|ing)? in|check-in", "commit"),
    (r"check(?:s|ed|ing)? out|check-out", "checkout switch"),
    (r"how (?:late|early) is it|what hour", "current time"),
    (r"how many", "+count"),
    (r"how (?:high|tall|low)", "+elevation"),
    (r"at once|in one go|all together|together", "+multiple"),
    (r"set(?:s|ting)? up|put(?:s|ting)? together|spin(?:s|ning)? up", "create"),
    (r"(?:write|jot|note|put|take)s? down|wrote down|keep(?:s|ing)? in mind|bear(?:s|ing)? in mind|kept in mind|"
     r"keep(?:s|ing)? track of|(?:make|take)s? (?:a )?note|made (?:a )?note|"
     r"(?<!the )(?<!a )(?:note|record)(?:s|ed)? that", "remember"),
    (r"go(?:es|ing)? back|roll(?:s|ing|ed)? back|take(?:s|n)? back|took back|back out|revert(?:s|ed)? to", "undo"),
    (r"(?:switch|change|hop|jump|go|move)(?:s|es|ed|ing|ped)? (?:over )?(?:to|onto)", "switch"),
    (r"turn(?:s|ing|ed)? (?:on|off)|switch(?:es|ing|ed)? (?:on|off)", "toggle"),
    (r"fill(?:s|ing|ed)? in|fill(?:s|ing|ed)? out", "update"),
    (r"right now|at the moment|at present|currently|these days", "current"),
    (r"how (?:big|large|heavy|long is)|take(?:s)? up|taking up|disk space|how much space", "size"),
    (r"(?:what|anything) (?:do|does|did) (?:you|we|i) (?:know|remember|have|recall) (?:about|on|of)|tell me about|"
     r"(?:what|anything) (?:is|was)? ?(?:known|stored|saved|noted) (?:about|on|of)", "+search"),
    (r"(?:was|were|is|got) (?:\w+ )?last (?:changed|modified|edited|updated|touched|saved|written|accessed)",
     "info modified"),
    (r"(?:first|top|opening) (?:\d+ |few |couple of )?(?:lines|rows|bytes|characters)|beginning of", "+head"),
    (r"(?:last|final|bottom) (?:\d+ |few |couple of )?(?:lines|rows|bytes|characters)|end of", "+tail"),
    (r"(?:the )?(?:last|latest|recent|newest) (?:\d+ |few |couple of )?(?!lines\b|rows\b|bytes\b)\w+s\b", "+recent"),
    (r"\b(?:what|which)\b[^?.!,]*\b(?:are|exist|exists)\b(?! you| we| they)|are there|is there any", "+list"),
)
# a "+" meaning is added after the phrase's own words, others replace them
_PHRASE = [(re.compile(rf"\b(?:{pattern})\b", re.I), rf"\g<0> {meaning[1:]} " if meaning[0] == "+" else f" {meaning} ")
           for pattern, meaning in _PHRASES]


def phrases(text: str) -> str:
    """``text`` with the set phrases of :data:`_PHRASES` replaced by the plain word for what they mean
    ("throw away what I staged" -> "discard what I staged"); a question form keeps its words and gains the
    word ("what files are in it" -> "what files are list in it")."""
    for pattern, replacement in _PHRASE:
        text = pattern.sub(replacement, text)
    return text


def words(text: str) -> list[str]:
    """Lower-case word stems of ``text``: identifiers split at ``_``, ``-``, ``.`` and case changes;
    common English words dropped; a light suffix stemmer (``files``/``listing``/``created`` ->
    ``fil``/``list``/``creat``) so a request's wording meets a tool's."""
    return [stem(w) for w in raw_words(text) if _IRREGULAR.get(w, w) not in STOP]


def raw_words(text: str) -> list[str]:
    """Lower-case words of ``text`` (identifiers split), unstemmed, stop words kept. Accents are folded
    (``créer`` meets ``creer``, ``größe`` ``grosse``: :func:`fold`); a script written without spaces (Chinese,
    Japanese, Korean) is read as its overlapping pairs of characters (``删除文件`` -> ``删除 除文 文件``), so
    a request meets a description that shares a word with it whatever the words around it."""
    found: list[str] = []
    for token in _TOKEN.findall(fold(text)):
        if token.isascii():
            found += [w.lower() for w in _WORD.findall(token)]
            continue
        for part in _CJK_SPLIT.split(token):
            if not part:
                continue
            if _CJK_RUN.fullmatch(part):
                found += [part] if len(part) == 1 else [part[i:i + 2] for i in range(len(part) - 1)]
            elif part.isascii():
                found += [w.lower() for w in _WORD.findall(part)]
            else:
                found.append(part.lower())
    return found


# letters and digits (any script); within them, the runs of a script written without spaces: CJK ideographs,
# hiragana, katakana (with the long-vowel mark), Hangul
_TOKEN = re.compile(r"[^\W_]+")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff\uff66-\uff9f"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_CJK_SPLIT = re.compile(f"([{_CJK}]+)")
_KANA_MARKS = frozenset("\u3099\u309a")  # the voicing marks of kana: part of the letter, not an accent


def fold(text: str) -> str:
    """``text`` without accents, for the index only (the embedding model reads the text as written):
    compatibility forms read as their plain letters (NFKD: a full-width letter is the plain one), combining marks
    dropped (``é`` is ``e``) except kana's voicing marks, ``ß`` as ``ss``. Case is kept (identifiers split at
    case changes later)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if not unicodedata.combining(c) or c in _KANA_MARKS)
    return unicodedata.normalize("NFC", kept).replace("ß", "ss").replace("ẞ", "SS")


def query_words(text: str) -> list[str]:
    """:func:`words` of a request, plus the words tools commonly use for them (``find`` -> ``search``)."""
    return list(weighted_query(text))


def weighted_query(text: str) -> dict[str, float]:
    """The stems of a request with their weights: its own words 1, the related words they bring
    :data:`RELATED_WEIGHT` (a word both said and related counts once, fully)."""
    weights: dict[str, float] = {}
    for group in query_groups(text):
        for word, weight in group.items():
            weights[word] = max(weight, weights.get(word, 0.0))
    return weights


def query_groups(text: str) -> list[dict[str, float]]:
    """Per distinct word of a request, one group for each meaning it has (the word itself, weight 1, and
    the meaning's other words, :data:`RELATED_WEIGHT`), or the word alone. A tool scores the best member
    of each group, so a word with many synonyms counts no more than one without, while a word with two
    meanings ("forget": delete, and memory) counts for both."""
    return [group for meanings in word_groups(text) for group in meanings]


def word_groups(text: str) -> list[list[dict[str, float]]]:
    """:func:`query_groups`, one list per distinct word of the request (for counting how many of the
    request's words a tool meets)."""
    return [[{**dict.fromkeys(meaning, RELATED_WEIGHT), word: 1.0} for meaning in meanings or ((),)]
            for word, meanings in word_meanings(text)]


def word_meanings(text: str) -> list[tuple[str, tuple[tuple[str, ...], ...]]]:
    """Per distinct word stem of a request (set phrases and kinds of value read first: :func:`phrases`,
    :func:`shapes`), the other words of each meaning it has in the table (none for most words)."""
    return [(word, RELATED.get(word, ())) for word in dict.fromkeys(words(phrases(shapes(text))))]


def shapes(text: str) -> str:
    """``text`` with each URL, e-mail address, path, file name, number, quoted text or thing "called" a
    name replaced by the kind of value it is ("open notes.md" -> "open file"): the value itself says
    nothing about the tool, its kind does (a request naming a file meets the file tools)."""
    for pattern, kind in _SHAPES:
        text = pattern.sub(kind, text)
    return text


# irregular English forms -> the form the suffix rules meet ("wrote" meets "write", "children" "child")
_IRREGULAR_FORMS = """
wrote:write written:write sent:send found:find made:make took:take taken:take gave:give given:give got:get
gotten:get saw:see seen:see knew:know known:know told:tell kept:keep left:leave ran:run began:begin begun:begin
went:go gone:go came:come brought:bring bought:buy built:build chose:choose chosen:choose drew:draw drawn:draw
fell:fall forgot:forget forgotten:forget held:hold lost:lose meant:mean met:meet paid:pay said:say sold:sell
shown:show spoke:speak spoken:speak spent:spend stood:stand taught:teach threw:throw thrown:throw hid:hide
hidden:hide understood:understand won:win undid:undo undone:undo redid:redo redone:redo rebuilt:rebuild
froze:freeze frozen:freeze broke:break broken:break did:do done:do dealt:deal felt:feel fed:feed
fought:fight flew:fly flown:fly grew:grow grown:grow hung:hang heard:hear led:lead lent:lend lit:light
rode:ride ridden:ride rang:ring rung:ring rose:rise risen:rise sang:sing sung:sing sank:sink sat:sit slept:sleep
sought:seek shook:shake stole:steal stolen:steal struck:strike swore:swear sworn:swear swept:sweep tore:tear
torn:tear woke:wake woken:wake wore:wear worn:wear children:child men:man women:woman
"""
_IRREGULAR = dict(pair.split(":") for pair in _IRREGULAR_FORMS.split())


def stem(word: str) -> str:
    """A light English suffix stemmer (plurals, ``-ing``, ``-ed``, a final ``e``), after irregular forms are
    read as their plain form (``wrote`` -> ``write`` -> ``writ``)."""
    word = _IRREGULAR.get(word, word)
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")) and not word.endswith("sses"):
        word = word[:-2] + "e"  # "boxes", "matches" (the "e" goes below)
    for suffix, replacement in (("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "shipping" -> "ship"
            break
    if word.endswith(("tion", "sion")) and len(word) >= 8:
        word = word[:-3]  # the noun meets its verb: "translation"/"translat", "compression"/"compress"
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]  # "create"/"creat", "delete"/"delet"
    return word


def _load_groups() -> None:
    for line in re.sub(r"\n\s+", " ", _GROUPS.strip()).splitlines():  # an indented line goes on the one above
        _, _, members = line.partition(":")
        stems = list(dict.fromkeys(stem(w) for w in members.split()))
        for word in stems:
            RELATED[word] = (*RELATED.get(word, ()), tuple(s for s in stems if s != word))


_load_groups()
