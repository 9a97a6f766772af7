/**
 * A language prior for the recall evidence threshold: about 900 of the most frequent English content
 * words (general frequency lists, not tuned to any channel or benchmark). A word that is common in the
 * language says little about whether a message concerns the channel's memory, even when it is rare in
 * the channel, so it counts half as evidence; a single common word can never open the gate on its own.
 * Grammatical words are not here: they are dropped as stop words.
 */
export const COMMON_ENGLISH = `
time times year years day days week weeks month months hour hours minute minutes second today tonight
tomorrow yesterday morning afternoon evening night weekend moment while ago soon late early later
people person man men woman women child children kid kids baby boy boys girl girls guy guys friend
friends family mother mom mum father dad parent parents brother sister son daughter wife husband
everyone everybody someone somebody anyone nobody
way thing things place places world country city town home house room door window school work job
office business company money price cost life lives story stories part parts case point fact facts
group number numbers name names word words line lines side end hand hands head eye eyes face body
water food car cars game games movie movies music song show book books news page picture photo photos
problem problems question questions answer answers idea ideas issue issues reason result results
kind type sort example level area form system program service team plan plans market information
power war state government party history art heart mind love war line lot lots bit couple
good great nice fine bad best better worse worst new old big small little large long short high low
right wrong real sure true false important different same whole free full easy hard simple possible
happy sad glad sorry funny cool awesome amazing beautiful pretty lovely wonderful terrible awful
hot cold warm busy ready able main own open close next last first second third final recent
young old early late quick fast slow strong weak clear dark light black white red blue green
get got getting go going gone went come came coming make made making take took taking see saw seen
look looking looked know knew known think thought want wanted need needed use used using find found
give gave given tell told say said ask asked work worked working seem seemed feel felt try tried
leave left call called keep kept let put mean meant become became begin began start started
show showed hear heard play played run ran move moved live lived believe bring brought happen
happened write wrote read sit sat stand stood lose lost pay paid meet met include continue set
learn learned change changed lead understand watch watched follow followed stop stopped create
speak spoke allow add spend spent grow grew offer remember love loved consider appear buy bought
wait waited serve die send sent expect build built stay fall fell cut reach kill remain suggest
raise pass sell sold require report decide decided pull help helped like liked hope hoped
talk talked thank thanks please hello hi hey bye yes yeah yep okay ok sure maybe
eat ate drink sleep slept walk walked drive drove travel visit visited enjoy enjoyed hate miss
missed share shared check checked fix fixed finish finished clean cook cooked wear wore fly
win won care cared carry hold held turn turned wish wished laugh cry smile agree forget forgot
again always never sometimes often usually already still even ever almost enough quite rather
really actually probably definitely especially finally maybe perhaps certainly exactly simply
today tonight anyway anyhow everything something anything nothing
thing stuff place weather rain snow sun sunny summer winter spring autumn fall season holiday
birthday party dinner lunch breakfast coffee tea beer wine pizza breakfast meal restaurant
weekend vacation trip trips weekend
internet phone computer email message messages video videos picture pictures tv film
question help hello chat bot joke jokes fun funny interesting boring
dog dogs cat cats pet pets animal animals bird tree trees flower flowers garden park beach sea
ocean river lake mountain road street shop store class teacher student doctor hospital church
sport sports football soccer basketball team player match ball run race exercise gym health
healthy sick tired hungry
paper table chair bed shirt clothes dress shoes bag box card gift gifts letter
color colour size shape sound voice noise smell taste
minute hour half quarter dozen hundred thousand million
`;
