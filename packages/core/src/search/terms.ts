import { stemmer } from "stemmer";

/**
 * English function words (NLTK's stop-word list, its contractions split as the tokenizer splits them).
 * They are in nearly every passage, so they add almost nothing to a BM25 ranking, yet each one makes a
 * search score every passage (and, as a prefix, every word it begins): a question full of them cost
 * a second over 1,000 documents where its content words alone take milliseconds.
 */
const STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under " +
    "again further then once here there when where why how all any both each few more most other some such no nor not " +
    "only own same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn " +
    "hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/**
 * How the memory and knowledge-base indexes read a word, at indexing and at search alike: lower-cased
 * and reduced to its English stem (Porter), so "parking", "parked" and "park" meet; a function word
 * is left out (null), so a query made only of them finds nothing rather than everything.
 */
export function searchTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : stemmer(lower);
}
