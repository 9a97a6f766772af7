/*
 * What a value after "the password is …" looks like when it is NOT a secret: the start of an
 * ordinary description ("the password is required", "… is in the vault", "… is the same as last
 * year"). A value that is none of these, after a word that names a credential, is taken as one.
 */

/** Words that start or link a phrase: never a secret on their own, and they end a spoken value. */
export const FUNCTION_WORDS = new Set(
  (
    'a an the this that these those it its my our your their his her them him me us you we they i one some any no none ' +
    'nothing every each all both either neither another other such ' +
    'in on at to for from with without by of under over into onto inside outside behind about above below near via per ' +
    'through within between after before during until since against like as than ' +
    'and or but so not never yes also still now then just only always usually often sometimes already again too very ' +
    'really quite pretty much more most less least soon here there where when what who whom how why which whatever ' +
    'whoever somewhere elsewhere nowhere anywhere everywhere enough even ' +
    'be being been is are was were will would should could can may might must do does did have has had ' +
    'if because unless while please'
  ).split(' '),
);

/**
 * Words that describe a credential rather than give it: states, properties, places, and the verbs
 * that send a reader elsewhere ("ask Sam", "see the wiki").
 */
export const DESCRIPTIVE_WORDS = new Set(
  (
    'done set reset changed stored kept saved shared sent written hidden listed needed required mandatory optional ' +
    'expired revoked disabled enabled active inactive valid invalid wrong correct right incorrect broken missing lost ' +
    'gone empty blank unset null undefined n/a na tbd tba unknown known secret private public confidential sensitive ' +
    'important weak strong long short simple complex easy hard good bad fine ok okay new old default temporary ' +
    'permanent random unique different identical same due pending ready available unavailable down up out off ' +
    'locked unlocked blocked plain plaintext visible obvious safe unsafe secure insecure compromised leaked exposed ' +
    'stale outdated current latest previous usual standard normal generic obsolete deprecated personal individual ' +
    'ask see check use rotate change find look contact call ping dm email message read update fetch grab pull get go ' +
    'visit open try type enter paste copy write store keep share send request generate create make ' +
    'case-sensitive per-user per-team per-project short-lived long-lived read-only write-only one-time single-use ' +
    'yours mine ours theirs somebody someone anyone everyone nobody whatever something anything everything'
  ).split(' '),
);

/** Endings of adjectives, participles and adverbs: "rotated", "expiring", "monthly", "unusable". */
const DESCRIPTIVE_ENDING = /^[a-z]+(?:ed|ing|ly|able|ible|ous|ive|ful|less)$/;

/** A word that describes rather than gives a value (checked lower-cased, punctuation stripped). */
export function isDescriptive(word: string): boolean {
  const w = word.toLowerCase();
  if (FUNCTION_WORDS.has(w) || DESCRIPTIVE_WORDS.has(w) || DESCRIPTIVE_ENDING.test(w)) return true;
  // "short-lived", "per-user", "Okta-managed": a two-part compound with a describing part. Three or
  // more parts ("orange-piano-ladder") is how passphrases are written.
  const parts = w.split('-');
  return parts.length === 2 && parts.every(Boolean) && /^[a-z-]+$/.test(w) && parts.some((p) => isDescriptive(p));
}
