import SyncCore
import Testing

/// ``SearchQuery`` as tables: what a person types, and the FTS5 expression and PostgreSQL
/// `to_tsquery` text it becomes.
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
        ("café notes", "'café' & 'notes'"),
        (#""meeting notes" budget"#, "'meeting notes' & 'budget'"),
        ("proj*", "'proj':*"),
        (#"unclosed "phrase runs on"#, "'unclosed' & 'phrase runs on'"),
        ("a | b & !c <-> d", "'a' & 'b' & '!c' & 'd'"),
        ("it's", "'it''s'"),
        (#"back\slash"#, #"'back\\slash'"#),
        ("title:secret*", "'title:secret':*"),
        ("***", nil),
        ("", nil),
        ("- * ?", nil),
    ]

    @Test(arguments: tsqueries) func tsquery(_ c: (String, String?)) { #expect(SearchQuery.tsquery(c.0) == c.1) }

    @Test func anyTermAlone() {
        #expect(SearchQuery.tsquery(#"budget "meeting notes" quart*"#, any: true) == "'budget' | 'meeting notes' | 'quart':*")
        #expect(SearchQuery.tsquery("***", any: true) == nil)
    }
}
