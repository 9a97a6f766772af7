/**
 * A language prior for the recall evidence threshold. A word that is common in the language says
 * little about whether a message concerns the channel's memory, even when it is rare in the channel,
 * so it counts only part as evidence (RecallTuning.weakFactor); a single common word never opens the
 * gate on its own. Grammatical words are not here: they are dropped as stop words (tokenize.ts).
 *
 * 514 everyday English content words (the commonest nouns, verbs, adjectives and adverbs of general
 * English, picked by hand), then 120 words of everyday chat (weather, meals, pets, gadgets, sport)
 * added by hand so that chit-chat does not open recall: without them the abstention bench lets one
 * more chat line in 243 through on two channels ("my internet is so slow today"); on LoCoMo they cost
 * 0.001–0.002 of evidence recall, within noise (docs/benchmarks.md). No word is here for one channel.
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

stuff weather rain snow sun sunny summer winter spring autumn season holiday birthday dinner lunch
breakfast coffee tea beer wine pizza meal restaurant vacation trip trips internet phone computer
email message messages video videos pictures tv film chat bot joke jokes fun interesting boring dog
dogs cat cats pet pets animal animals bird tree trees flower flowers garden park beach sea ocean
river lake mountain road street shop store class teacher student doctor hospital church sport sports
football soccer basketball player match ball race exercise gym health healthy sick tired hungry
paper table chair bed shirt clothes dress shoes bag box card gift gifts letter color colour size
shape sound voice noise smell taste half quarter dozen hundred thousand million
`;
