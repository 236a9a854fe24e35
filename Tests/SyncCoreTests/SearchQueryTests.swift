import SyncCore
import Testing

/// ``SearchQuery`` as tables: what a person types, and the FTS5 expression and PostgreSQL
/// `tsquery` it becomes; ``SearchWords`` as a table: the words of a text.
@Suite struct SearchQueryTests {
    static let cases: [(String, String?)] = [
        ("café notes", #""café" "notes""#),
        (#""meeting notes" budget"#, #""meeting notes" "budget""#),
        ("proj*", #""proj"*"#),
        ("  spaced   out  ", #""spaced" "out""#),
        (#"unclosed "phrase runs on"#, #""unclosed" "phrase runs on""#),
        ("NEAR(a b) OR c", #""NEAR(a" "b)" "OR" "c""#),
        ("title:secret", #""title:secret""#),
        (#"it"s"#, #""it""s""#),
        ("***", nil),
        ("", nil),
        (#""""#, nil),
        ("- * ?", nil),
        ("2026*", #""2026"*"#),
    ]

    @Test(arguments: cases) func match(_ c: (String, String?)) { #expect(SearchQuery.match(c.0) == c.1) }

    static let tsqueries: [(String, String?)] = [
        ("café notes", "'cafe' & 'notes'"),
        (#""meeting notes" budget"#, "('meeting' <-> 'notes') & 'budget'"),
        ("proj*", "'proj':*"),
        ("Straße*", "'strasse':*"),
        (#"unclosed "phrase runs on"#, "'unclosed' & ('phrase' <-> 'runs' <-> 'on')"),
        ("a | b & !c <-> d", "'a' & 'b' & 'c' & 'd'"),
        ("it's", "('it' <-> 's')"),
        (#"back\slash"#, "('back' <-> 'slash')"),
        ("title:secret*", "('title' <-> 'secret':*)"),
        ("e-mail 東京", "('e' <-> 'mail') & '東京'"),
        ("***", nil),
        ("", nil),
        ("- * ?", nil),
    ]

    @Test(arguments: tsqueries) func tsquery(_ c: (String, String?)) { #expect(SearchQuery.tsquery(c.0) == c.1) }

    @Test func anyTermAlone() {
        #expect(SearchQuery.tsquery(#"budget "meeting notes" quart*"#, any: true) == "'budget' | ('meeting' <-> 'notes') | 'quart':*")
        #expect(SearchQuery.tsquery("***", any: true) == nil)
    }

    static let words: [(String, [String])] = [
        ("Café crème", ["cafe", "creme"]),
        ("Cafe\u{301} au lait", ["cafe", "au", "lait"]),
        ("it's e-mail_address", ["it", "s", "e", "mail", "address"]),
        ("ÜBER Straße naïve—test", ["uber", "strasse", "naive", "test"]),
        ("東京 Ελληνικά", ["東京", "ελληνικα"]),
        ("v3.14 and 2026-12-05", ["v3", "14", "and", "2026", "12", "05"]),
        ("x\u{00A0}y 🙂 «quoted»", ["x", "y", "quoted"]),
        ("MiXeD123 ABC", ["mixed123", "abc"]),
        ("", []),
        ("--- !!! ...", []),
    ]

    @Test(arguments: words) func wordsOf(_ c: (String, [String])) { #expect(SearchWords.words(in: c.0) == c.1) }
}
