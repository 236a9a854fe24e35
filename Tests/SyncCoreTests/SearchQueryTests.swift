import SyncCore
import Testing

/// ``SearchQuery`` as a table: what a person types, and the FTS5 expression it becomes.
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
}
