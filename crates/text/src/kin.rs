//! Who someone is to the user, and what is not someone at all: the kinship and role words of
//! English and Japanese with the relation each one names ("my sister" → `sibling-of`, "上司" →
//! `manages`), the honorifics that are never part of a name ("Dr.", "さん", "先生"), role
//! acronyms that are not tools ("SRE", "CTO"), the nouns for things that get names ("the
//! printer is called Gutenberg"), and common given names. Pure data and lookups for
//! [`crate::route`]; no I/O.
//!
//! Invariant: every relation named here is declared, with its inverse, in the workspace
//! template's `memory/graph/relations.md` (a test in the store crate checks it), so what
//! routing writes is never an unknown relation.

/// A word for someone's role in the user's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Role {
    /// The word as written: lower case for English, as is for Japanese.
    pub word: &'static str,
    /// The English role, for ids of people not yet named (`person--user-sister`).
    pub canonical: &'static str,
    /// The relation from the person to the user (`person--hana sibling-of person--user`).
    pub relation: &'static str,
}

mod mention;

pub use mention::{Mention, Span, ja_home_after, mentions};

const fn role(word: &'static str, canonical: &'static str, relation: &'static str) -> Role {
    Role { word, canonical, relation }
}

/// Every relation a role word can name, for the vocabulary check.
pub const RELATIONS: &[&str] = &[
    "sibling-of",
    "parent-of",
    "child-of",
    "grandparent-of",
    "grandchild-of",
    "spouse-of",
    "partner-of",
    "relative-of",
    "friend-of",
    "colleague-of",
    "manages",
    "reports-to",
    "mentors",
    "mentored-by",
    "neighbour-of",
    "lives-with",
    "serves",
];

/// English role words, lower case, several words where needed. Words that more often mean a
/// thing or the agent itself ("my report is due", "my assistant should…") are left out.
pub const EN_ROLES: &[Role] = &[
    role("sister", "sister", "sibling-of"),
    role("brother", "brother", "sibling-of"),
    role("sibling", "sibling", "sibling-of"),
    role("twin", "twin", "sibling-of"),
    role("mother", "mother", "parent-of"),
    role("mom", "mother", "parent-of"),
    role("mum", "mother", "parent-of"),
    role("mommy", "mother", "parent-of"),
    role("mummy", "mother", "parent-of"),
    role("mama", "mother", "parent-of"),
    role("father", "father", "parent-of"),
    role("dad", "father", "parent-of"),
    role("daddy", "father", "parent-of"),
    role("papa", "father", "parent-of"),
    role("parent", "parent", "parent-of"),
    role("stepmother", "stepmother", "parent-of"),
    role("stepfather", "stepfather", "parent-of"),
    role("son", "son", "child-of"),
    role("daughter", "daughter", "child-of"),
    role("kid", "child", "child-of"),
    role("child", "child", "child-of"),
    role("stepson", "stepson", "child-of"),
    role("stepdaughter", "stepdaughter", "child-of"),
    role("grandmother", "grandmother", "grandparent-of"),
    role("grandma", "grandmother", "grandparent-of"),
    role("granny", "grandmother", "grandparent-of"),
    role("grandfather", "grandfather", "grandparent-of"),
    role("grandpa", "grandfather", "grandparent-of"),
    role("grandparent", "grandparent", "grandparent-of"),
    role("grandson", "grandson", "grandchild-of"),
    role("granddaughter", "granddaughter", "grandchild-of"),
    role("grandchild", "grandchild", "grandchild-of"),
    role("wife", "wife", "spouse-of"),
    role("husband", "husband", "spouse-of"),
    role("spouse", "spouse", "spouse-of"),
    role("partner", "partner", "partner-of"),
    role("boyfriend", "boyfriend", "partner-of"),
    role("girlfriend", "girlfriend", "partner-of"),
    role("fiance", "fiance", "partner-of"),
    role("fiancé", "fiance", "partner-of"),
    role("fiancee", "fiancee", "partner-of"),
    role("fiancée", "fiancee", "partner-of"),
    role("cousin", "cousin", "relative-of"),
    role("aunt", "aunt", "relative-of"),
    role("uncle", "uncle", "relative-of"),
    role("niece", "niece", "relative-of"),
    role("nephew", "nephew", "relative-of"),
    role("mother-in-law", "mother-in-law", "relative-of"),
    role("father-in-law", "father-in-law", "relative-of"),
    role("sister-in-law", "sister-in-law", "relative-of"),
    role("brother-in-law", "brother-in-law", "relative-of"),
    role("best friend", "best-friend", "friend-of"),
    role("friend", "friend", "friend-of"),
    role("buddy", "friend", "friend-of"),
    role("colleague", "colleague", "colleague-of"),
    role("coworker", "colleague", "colleague-of"),
    role("co-worker", "colleague", "colleague-of"),
    role("teammate", "teammate", "colleague-of"),
    role("cofounder", "cofounder", "colleague-of"),
    role("co-founder", "cofounder", "colleague-of"),
    role("ceo", "ceo", "colleague-of"),
    role("cto", "cto", "colleague-of"),
    role("cfo", "cfo", "colleague-of"),
    role("coo", "coo", "colleague-of"),
    role("cio", "cio", "colleague-of"),
    role("vp", "vp", "colleague-of"),
    role("sre", "sre", "colleague-of"),
    role("designer", "designer", "colleague-of"),
    role("tech lead", "tech-lead", "colleague-of"),
    role("product manager", "product-manager", "colleague-of"),
    role("pm", "pm", "colleague-of"),
    role("boss", "boss", "manages"),
    role("manager", "manager", "manages"),
    role("line manager", "manager", "manages"),
    role("supervisor", "supervisor", "manages"),
    role("team lead", "team-lead", "manages"),
    role("direct report", "report", "reports-to"),
    role("intern", "intern", "reports-to"),
    role("mentor", "mentor", "mentors"),
    role("coach", "coach", "mentors"),
    role("tutor", "tutor", "mentors"),
    role("teacher", "teacher", "mentors"),
    role("mentee", "mentee", "mentored-by"),
    role("student", "student", "mentored-by"),
    role("neighbour", "neighbour", "neighbour-of"),
    role("neighbor", "neighbour", "neighbour-of"),
    role("roommate", "roommate", "lives-with"),
    role("flatmate", "flatmate", "lives-with"),
    role("housemate", "housemate", "lives-with"),
    role("doctor", "doctor", "serves"),
    role("gp", "doctor", "serves"),
    role("physician", "doctor", "serves"),
    role("dentist", "dentist", "serves"),
    role("therapist", "therapist", "serves"),
    role("psychiatrist", "psychiatrist", "serves"),
    role("lawyer", "lawyer", "serves"),
    role("attorney", "lawyer", "serves"),
    role("accountant", "accountant", "serves"),
    role("landlord", "landlord", "serves"),
    role("landlady", "landlord", "serves"),
    role("vet", "vet", "serves"),
    role("physio", "physiotherapist", "serves"),
    role("physiotherapist", "physiotherapist", "serves"),
    role("hairdresser", "hairdresser", "serves"),
    role("barber", "barber", "serves"),
    role("personal trainer", "trainer", "serves"),
    role("trainer", "trainer", "serves"),
    role("nurse", "nurse", "serves"),
];

/// Japanese role words, as written.
pub const JA_ROLES: &[Role] = &[
    role("お姉さん", "sister", "sibling-of"),
    role("お兄さん", "brother", "sibling-of"),
    role("姉", "sister", "sibling-of"),
    role("妹", "sister", "sibling-of"),
    role("兄", "brother", "sibling-of"),
    role("弟", "brother", "sibling-of"),
    role("お母さん", "mother", "parent-of"),
    role("お父さん", "father", "parent-of"),
    role("母親", "mother", "parent-of"),
    role("父親", "father", "parent-of"),
    role("母", "mother", "parent-of"),
    role("父", "father", "parent-of"),
    role("息子", "son", "child-of"),
    role("娘", "daughter", "child-of"),
    role("子供", "child", "child-of"),
    role("祖母", "grandmother", "grandparent-of"),
    role("祖父", "grandfather", "grandparent-of"),
    role("おばあちゃん", "grandmother", "grandparent-of"),
    role("おじいちゃん", "grandfather", "grandparent-of"),
    role("孫", "grandchild", "grandchild-of"),
    role("夫", "husband", "spouse-of"),
    role("妻", "wife", "spouse-of"),
    role("主人", "husband", "spouse-of"),
    role("旦那", "husband", "spouse-of"),
    role("嫁", "wife", "spouse-of"),
    role("奥さん", "wife", "spouse-of"),
    role("彼氏", "boyfriend", "partner-of"),
    role("恋人", "partner", "partner-of"),
    role("婚約者", "fiance", "partner-of"),
    role("いとこ", "cousin", "relative-of"),
    role("叔母", "aunt", "relative-of"),
    role("伯母", "aunt", "relative-of"),
    role("叔父", "uncle", "relative-of"),
    role("伯父", "uncle", "relative-of"),
    role("姪", "niece", "relative-of"),
    role("甥", "nephew", "relative-of"),
    role("親友", "best-friend", "friend-of"),
    role("友達", "friend", "friend-of"),
    role("友人", "friend", "friend-of"),
    role("同僚", "colleague", "colleague-of"),
    role("先輩", "colleague", "colleague-of"),
    role("後輩", "colleague", "colleague-of"),
    role("上司", "manager", "manages"),
    role("部長", "manager", "manages"),
    role("課長", "manager", "manages"),
    role("部下", "report", "reports-to"),
    role("師匠", "mentor", "mentors"),
    role("メンター", "mentor", "mentors"),
    role("隣人", "neighbour", "neighbour-of"),
    role("ルームメイト", "roommate", "lives-with"),
    role("主治医", "doctor", "serves"),
    role("歯医者", "dentist", "serves"),
    role("歯科医", "dentist", "serves"),
    role("医者", "doctor", "serves"),
    role("弁護士", "lawyer", "serves"),
    role("税理士", "accountant", "serves"),
    role("会計士", "accountant", "serves"),
    role("大家", "landlord", "serves"),
    role("獣医", "vet", "serves"),
    role("美容師", "hairdresser", "serves"),
];

/// Words that may stand between "my" and a role ("my little sister", "my new manager").
#[rustfmt::skip]
pub const EN_ROLE_ADJECTIVES: &[&str] = &[
    "little", "big", "older", "younger", "elder", "baby", "twin", "new", "old", "best", "dear",
    "favourite", "favorite",
];

/// The English role `words` starts with (lower case, longest first), and its length in bytes.
pub fn en_role_prefix(words: &str) -> Option<(&'static Role, usize)> {
    EN_ROLES
        .iter()
        .filter(|r| {
            words.starts_with(r.word)
                && words[r.word.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '-'))
        })
        .max_by_key(|r| r.word.len())
        .map(|r| (r, r.word.len()))
}

/// The Japanese role word that starts at byte `at` of `text`, longest first.
pub fn ja_role_at(text: &str, at: usize) -> Option<&'static Role> {
    let rest = &text[at..];
    JA_ROLES.iter().filter(|r| rest.starts_with(r.word)).max_by_key(|r| r.word.len())
}

/// Tells whether a word is an English honorific that is not part of a name ("Dr.", "mrs").
pub fn is_honorific(word: &str) -> bool {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    matches!(
        w.as_str(),
        "dr" | "mr" | "mrs" | "ms" | "mx" | "miss" | "prof" | "professor" | "sir" | "dame"
    )
}

/// Japanese honorifics that follow a name and are not part of it, longest first.
pub const JA_HONORIFICS: &[&str] =
    &["ちゃん", "さん", "さま", "くん", "先生", "様", "君", "氏", "殿", "先輩"];

/// Returns `name` without a trailing Japanese honorific, and whether it had one.
pub fn strip_ja_honorific(name: &str) -> (&str, bool) {
    for h in JA_HONORIFICS {
        if let Some(bare) = name.strip_suffix(h)
            && !bare.is_empty()
        {
            return (bare, true);
        }
    }
    (name, false)
}

/// Tells whether a capitalised word is a job title written as an acronym ("SRE", "CTO"): a
/// role, never a tool or an entity of its own.
pub fn is_role_acronym(word: &str) -> bool {
    matches!(
        word.trim_end_matches('s'),
        "SRE" | "CTO" | "CEO" | "CFO" | "COO" | "CIO" | "CISO" | "VP" | "PM" | "EM" | "QA" | "HR"
    )
}

/// The entity type of something named after a noun ("the printer is called X" → `tool`), or
/// `person` for nouns that mean someone; `None` for a noun this table does not know.
pub fn thing_kind(noun: &str) -> Option<&'static str> {
    let n = noun.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
    let n = n.as_str();
    #[rustfmt::skip]
    const TOOL: &[&str] = &[
        "printer", "laptop", "computer", "pc", "server", "phone", "router", "network", "wifi",
        "wi-fi", "robot", "machine", "device", "tablet", "drive", "disk", "repo", "repository",
        "database", "cluster", "bot", "vm", "nas", "camera", "tv", "speaker", "console", "script",
        "bucket", "instance", "keyboard", "monitor", "car", "bike", "boat", "van", "tool", "model",
        "workstation", "desktop", "raspberry", "pi", "mac", "watch",
    ];
    #[rustfmt::skip]
    const PLACE: &[&str] = &[
        "room", "office", "building", "cafe", "café", "restaurant", "bar", "pub", "street", "town",
        "village", "house", "flat", "apartment", "cabin", "park", "gym", "floor", "hall", "venue",
        "hotel", "beach", "lake", "mountain", "island", "city", "neighbourhood", "neighborhood",
        "garden",
    ];
    #[rustfmt::skip]
    const ORG: &[&str] = &[
        "company", "startup", "firm", "band", "club", "charity", "agency", "school", "shop",
        "store", "bank", "university", "lab", "studio", "team", "group", "church",
    ];
    #[rustfmt::skip]
    const PROJECT: &[&str] = &[
        "project", "app", "product", "initiative", "codename", "feature", "service", "website",
    ];
    #[rustfmt::skip]
    const PERSON: &[&str] = &[
        "guy", "man", "woman", "girl", "boy", "person", "lady", "gentleman", "someone", "baby",
        "intern", "contractor", "candidate", "customer", "client",
    ];
    if TOOL.contains(&n) {
        Some("tool")
    } else if PLACE.contains(&n) {
        Some("place")
    } else if ORG.contains(&n) {
        Some("organization")
    } else if PROJECT.contains(&n) {
        Some("project")
    } else if PERSON.contains(&n) || en_role_prefix(n).is_some_and(|(_, len)| len == n.len()) {
        Some("person")
    } else {
        None
    }
}

/// Tells whether a word is a common given name ("Priya", "Kenji", "Alice"): alone, with no
/// other sign, it names someone. Names that are also places, months or things ("Paris",
/// "April", "Ruby") are left out.
pub fn is_given_name(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    GIVEN_NAMES.binary_search(&w.as_str()).is_ok()
}

/// Common given names across languages, lower case and sorted (binary search).
#[rustfmt::skip]
const GIVEN_NAMES: &[&str] = &[
    "aarav", "aaron", "abdul", "abigail", "adam", "adrian", "ahmad", "ahmed", "aiko", "aisha",
    "akira", "alan", "alberto", "alejandro", "alessandro", "alex", "alexander", "ali", "alice",
    "alicia", "amanda", "amelia", "amir", "amit", "amy", "ana", "andre", "andrea", "andreas",
    "andres", "andrew", "angela", "anika", "anna", "anne", "anton", "antonio", "arjun", "arthur",
    "ayumi", "beatriz", "ben", "benjamin", "bianca", "bob", "brian", "bruno", "camila", "carla",
    "carlos", "carmen", "carol", "caroline", "catherine", "cecilia", "charlie", "chen", "chloe",
    "chris", "christian", "christina", "christopher", "claire", "clara", "claudia", "cristina",
    "dana", "daniel", "daniela", "dario", "dave", "david", "deborah", "deepa", "denise", "diego",
    "dimitri", "divya", "dmitri", "dylan", "eduardo", "elena", "eli", "elias", "elif", "elisa",
    "elizabeth", "ella", "ellen", "emil", "emilia", "emily", "emma", "enrique", "eric", "erik",
    "erin", "ethan", "eva", "evan", "fabio", "fatima", "felix", "fernando", "fiona", "francesca",
    "francesco", "francisco", "frank", "gabriel", "gabriela", "george", "giorgio", "giovanni",
    "giulia", "greg", "gustavo", "hana", "hannah", "haruto", "hassan", "hector", "helen", "henrik",
    "hiro", "hiroshi", "hugo", "hussein", "ian", "ibrahim", "igor", "ines", "ingrid", "irene",
    "isaac", "isabel", "isabella", "ivan", "jack", "jacob", "jakob", "james", "jana", "jane",
    "jasmine", "jason", "javier", "jen", "jennifer", "jeremy", "jessica", "jin", "joanna", "joao",
    "joe", "johan", "john", "jonas", "jorge", "jose", "joseph", "joshua", "juan", "julia", "julian",
    "julie", "justin", "kai", "kamal", "karen", "karim", "karl", "katarina", "kate", "katherine",
    "kenji", "kevin", "khalid", "kim", "klaus", "kofi", "lars", "laura", "lea", "leila", "lena",
    "leo", "leon", "li", "lina", "linda", "lisa", "lorenzo", "lucas", "lucia", "lucy", "luigi",
    "luis", "luisa", "luka", "magnus", "manuel", "marc", "marco", "marcus", "maria", "mariana",
    "marie", "marina", "mario", "markus", "marta", "martin", "mary", "mateo", "mateus", "matt",
    "matteo", "mehmet", "mei", "melanie", "melissa", "mia", "michael", "michelle", "miguel", "mike",
    "ming", "mohamed", "mohammed", "monica", "nadia", "naomi", "natalia", "nathan", "nicolas",
    "nicole", "nikolai", "nils", "nina", "noah", "olga", "oliver", "olivia", "omar", "oscar",
    "pablo", "paolo", "pascal", "patricia", "patrick", "paul", "pedro", "peter", "pierre", "priya",
    "rachel", "rafael", "rahul", "raj", "raquel", "ravi", "rebecca", "ricardo", "rina", "robert",
    "roberto", "rodrigo", "rosa", "rui", "ryan", "sakura", "sam", "samuel", "sandra", "santiago",
    "sara", "sarah", "sato", "sebastian", "sergio", "simon", "simone", "sofia", "sonia", "sophie",
    "sota", "stefan", "steve", "sunita", "susan", "suzuki", "sven", "takashi", "tanaka", "tariq",
    "taro", "teresa", "thomas", "tim", "tobias", "tom", "tomas", "valentina", "vanessa", "victor",
    "vikram", "vincent", "wei", "yasmin", "yuki", "yuri", "yusuf", "yuto", "zoe",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_names_are_sorted_for_binary_search() {
        assert!(GIVEN_NAMES.windows(2).all(|w| w[0] < w[1]), "GIVEN_NAMES must stay sorted");
        assert!(is_given_name("Priya") && is_given_name("KENJI") && !is_given_name("Atlas"));
    }

    #[test]
    fn every_role_names_a_declared_relation() {
        for r in EN_ROLES.iter().chain(JA_ROLES) {
            assert!(RELATIONS.contains(&r.relation), "{} names {}", r.word, r.relation);
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(
            en_role_prefix("best friend anna").map(|(r, _)| r.canonical),
            Some("best-friend")
        );
        assert_eq!(en_role_prefix("sisters").map(|(r, _)| r.word), None);
        assert_eq!(en_role_prefix("sister-in-law x").map(|(r, _)| r.relation), Some("relative-of"));
        assert_eq!(ja_role_at("お母さんは", 0).map(|r| r.canonical), Some("mother"));
        assert_eq!(strip_ja_honorific("鈴木先生"), ("鈴木", true));
        assert_eq!(strip_ja_honorific("さん"), ("さん", false));
        assert!(is_honorific("Dr.") && is_honorific("mrs") && !is_honorific("Drew"));
        assert!(is_role_acronym("SRE") && is_role_acronym("CTOs") && !is_role_acronym("AWS"));
        assert_eq!(thing_kind("printer"), Some("tool"));
        assert_eq!(thing_kind("dentist"), Some("person"));
        assert_eq!(thing_kind("idea"), None);
    }
}
