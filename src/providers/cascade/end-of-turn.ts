/**
 * Adaptive end of turn for cascade voice: how much quiet, counted from the moment the visitor stopped speaking, ends
 * the turn, judged on the words heard so far. A finished question is answered after a short quiet, a finished
 * sentence after a little more, a visitor who trails off ("and also…", "I want to…", a filler, a cut word) is given
 * a long pause to go on, and words this cannot judge (another language, no end mark) keep the middle pause, the
 * fixed rule cascade used before (docs/voice.md, Cascade voice, How a turn flows).
 */

/** Quiet that ends the turn, in ms, by what the words so far look like. */
export const END_OF_TURN_MS = Object.freeze({
  /** Ends on "?" or "!": a question or exclamation the visitor finished. */
  question: 250,
  /** Ends on a full stop after a word that can end a sentence. */
  statement: 400,
  /** No end mark, another language, nothing heard: the fixed pause of the old rule. */
  middle: 800,
  /** Trails off: ends on a conjunction, preposition, article, auxiliary, filler, "…", a comma or a cut word. */
  trailing: 2000,
});

/** Words after which an English sentence is not finished (a full stop after them is a transcriber's guess). */
const EN_OPEN = new Set([
  // conjunctions
  'and', 'or', 'but', 'nor', 'because', 'cause', 'if', 'when', 'whether', 'while', 'although', 'though', 'unless', 'until', 'than', 'whereas',
  // prepositions (not those that also end phrasal verbs: "come in", "turn it on", "it's over")
  'to', 'of', 'for', 'with', 'without', 'into', 'onto', 'at', 'from', 'by', 'about', 'between', 'through', 'during', 'towards', 'toward', 'via', 'per', 'like', 'as',
  // articles, determiners, possessives
  'a', 'an', 'the', 'my', 'your', 'our', 'their', 'his', 'its', 'some', 'every', 'each', 'another',
  // fillers
  'um', 'umm', 'uh', 'uhm', 'erm', 'er', 'hmm', 'mm',
]);
/** Auxiliaries and linking verbs: open ("my order number is…") unless a short answer ("yes, I do"). */
const EN_AUX = new Set([
  'is', 'are', 'was', 'were', 'am', 'be', 'been', 'being', 'have', 'has', 'had', 'do', 'does', 'did', 'will', 'would', 'can', 'could',
  'should', 'shall', 'may', 'might', 'must', "i'm", "it's", "that's", "there's", "i'd", "i'll", "we're", "you're", "they're",
]);
const EN_PRONOUNS = new Set(['i', 'you', 'we', 'they', 'he', 'she', 'it', 'that', 'this', 'there', 'not']);
/** Subject pronouns: open ("and then I…") unless after an auxiliary ("so do I"). */
const EN_SUBJECTS = new Set(['i', 'we', 'they', 'he', 'she']);

/** Whether English words end where the sentence cannot (a conjunction, preposition, article, auxiliary, filler). */
function endsOpen(w: string[]): boolean {
  const last = w.at(-1) ?? '';
  const before = w.at(-2) ?? '';
  if (EN_OPEN.has(last)) return true;
  if (EN_AUX.has(last)) return !EN_PRONOUNS.has(before);
  if (EN_SUBJECTS.has(last)) return !EN_AUX.has(before);
  return false;
}

/** Common English words: a transcript made mostly of them is read as English when the language is not known. */
const EN_COMMON = new Set([
  ...EN_OPEN, ...EN_AUX, ...EN_PRONOUNS, 'you', 'it', 'me', 'us', 'them', 'this', 'that', 'what', 'where', 'who', 'how', 'why', 'which', 'not', "don't", "can't",
  'please', 'want', 'need', 'know', 'like', 'would', 'open', 'hello', 'hi', 'thanks', 'thank', 'yes', 'yeah', 'okay', 'ok', 'also', 'there', 'here',
  'order', 'book', 'table', 'time', 'today', 'tomorrow', 'get', 'make', 'tell', 'help', 'just', 'about', 'again',
]);

/** Two-letter code of a language tag ("en-GB" -> "en"); null for none. */
function baseLanguage(lang: string | null | undefined): string | null {
  const base = lang?.trim().toLowerCase().split(/[-_]/)[0];
  return base ? base : null;
}

function words(text: string): string[] {
  return text.toLowerCase().replace(/[’‘]/g, "'").match(/[a-z']+/g) ?? [];
}

/** Whether a transcript of unknown language reads as English (most of its words are common English ones). */
export function looksEnglish(text: string): boolean {
  const w = words(text);
  if (!w.length || /[^\x00-\x7F’‘…—–]/.test(text)) return false;
  const common = w.filter((x) => EN_COMMON.has(x)).length;
  return common >= Math.min(2, w.length) && common / w.length >= 0.4;
}

/**
 * The quiet (ms, from the end of speech) after which the visitor's turn is over, given the words heard so far and
 * the conversation's language (a tag such as "en" or "en-GB"; null: unknown, guessed from the words). English is
 * read word by word; other languages get the middle pause.
 */
export function endOfTurnDelay(transcriptSoFar: string, lang: string | null): number {
  const text = transcriptSoFar.trim();
  if (!text) return END_OF_TURN_MS.middle;
  const base = baseLanguage(lang);
  const english = base === 'en' || (base === null && looksEnglish(text));
  if (!english) return END_OF_TURN_MS.middle;
  // Trailing off in the punctuation: an ellipsis, a comma, a dash or a cut word ("bo-").
  if (/(\.\.\.|…|[,;:\-–—])["')\]]*$/.test(text)) return END_OF_TURN_MS.trailing;
  const mark = /([.?!])["')\]]*$/.exec(text)?.[1] ?? null;
  // A question may end on a preposition ("Where are you from?"): its question mark is believed.
  if (mark === '?' || mark === '!') return END_OF_TURN_MS.question;
  if (endsOpen(words(text))) return END_OF_TURN_MS.trailing;
  if (mark === '.') return END_OF_TURN_MS.statement;
  return END_OF_TURN_MS.middle;
}

/**
 * Whether cascade sessions judge the end of the turn on the words (read at each turn). The benches switch it off to
 * measure the old fixed pause as their baseline in the same run; a session can also be given its own (CascadeOptions).
 */
export const turnTaking = { adaptive: true };
