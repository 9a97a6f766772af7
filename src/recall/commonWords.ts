/**
 * A language prior for the recall evidence threshold: 514 everyday English content words (the
 * commonest nouns, verbs, adjectives and adverbs of general English, picked by hand; no word was added
 * for a channel or a benchmark). A word that is common in the language says little about whether a
 * message concerns the channel's memory, even when it is rare in the channel, so it counts only part
 * as evidence (RecallTuning.weakFactor); a single common word never opens the gate on its own.
 * Grammatical words are not here: they are dropped as stop words (tokenize.ts).
 */
export const COMMON_ENGLISH = `
time times year years day days week weeks month months hour hours minute minutes second today
tonight tomorrow yesterday morning afternoon evening night weekend moment while ago soon late early
later people person man men woman women child children kid kids baby boy boys girl girls guy guys
friend friends family mother mom mum father dad parent parents brother sister son daughter wife
husband everyone everybody someone somebody anyone nobody way thing things place places world
country city town home house room door window school work job office business company money price
cost life lives story stories part parts case point fact facts group number numbers name names word
words line lines side end hand hands head eye eyes face body water food car cars game games movie
movies music song show book books news page picture photo photos problem problems question questions
answer answers idea ideas issue issues reason result results kind type sort example level area form
system program service team plan plans market information power war state government party history
art heart mind love lot lots bit couple good great nice fine bad best better worse worst new old big
small little large long short high low right wrong real sure true false important different same
whole free full easy hard simple possible happy sad glad sorry funny cool awesome amazing beautiful
pretty lovely wonderful terrible awful hot cold warm busy ready able main own open close next last
first third final recent young quick fast slow strong weak clear dark light black white red blue
green get got getting go going gone went come came coming make made making take took taking see saw
seen look looking looked know knew known think thought want wanted need needed use used using find
found give gave given tell told say said ask asked worked working seem seemed feel felt try tried
leave left call called keep kept let put mean meant become became begin began start started showed
hear heard play played run ran move moved live lived believe bring brought happen happened write
wrote read sit sat stand stood lose lost pay paid meet met include continue set learn learned change
changed lead understand watch watched follow followed stop stopped create speak spoke allow add
spend spent grow grew offer remember loved consider appear buy bought wait waited serve die send
sent expect build built stay fall fell cut reach kill remain suggest raise pass sell sold require
report decide decided pull help helped like liked hope hoped talk talked thank thanks please hello
hi hey bye yes yeah yep okay ok maybe eat ate drink sleep slept walk walked drive drove travel visit
visited enjoy enjoyed hate miss missed share shared check checked fix fixed finish finished clean
cook cooked wear wore fly win won care cared carry hold held turn turned wish wished laugh cry smile
agree forget forgot again always never sometimes often usually already still even ever almost enough
quite rather really actually probably definitely especially finally perhaps certainly exactly simply
anyway anyhow everything something anything nothing
`;
