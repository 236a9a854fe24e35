import Postgres
@testable import SyncServer
import TestSupport
import Testing

/// ``SearchVector`` as a table: a note's values and body, and the `tsvector` literal kept for them.
@Suite struct SearchVectorTests {
    static let cases: [(values: String, body: String, literal: String)] = [
        ("", "", ""),
        ("", "One two one", "'one':1,3 'two':2"),
        ("Finance\nZoë", "the budget, Zoe", "'finance':1B 'zoe':2B,5 'the':3 'budget':4"),
        ("a'b", "", "'a':1B 'b':2B"),
        ("", String(repeating: "x ", count: 300), "'x':" + (1...255).map(String.init).joined(separator: ",")),
        ("", String(repeating: "w ", count: 16_382) + "a b c", "'w':" + (1...255).map(String.init).joined(separator: ",") + " 'a':16383 'b':16383 'c':16383"),
        ("", String(repeating: "Ab", count: 1_024) + " ok", "'ok':2"),
        ("", String(repeating: "é", count: 2_047) + " ok", "'" + String(repeating: "e", count: 2_047) + "':1 'ok':2"),
    ]

    @Test(arguments: cases) func literal(_ c: (values: String, body: String, literal: String)) {
        #expect(SearchVector.literal(values: c.values, body: c.body) == c.literal)
    }

    /// For plain words the vectors are the ones PostgreSQL made before them (`to_tsvector` with
    /// `simple` and `unaccent`, the values weighing `B`): ranks and phrases read them alike.
    @Test func plainWordsAreWhatPostgreSQLMade() async throws {
        try await TestServer.with { server in
            let db = try PostgresConnection(connectionString: server.databaseURL)
            defer { db.close() }
            let texts: [(values: String, body: String)] = [
                ("", "Milk foam over an espresso"),
                ("finance\nplanning\nZoë", "The meeting notes for the quarterly numbers. The budget, again the budget!"),
                ("Café", "crème brûlée ÜBER alles 2026"),
                ("", String(repeating: "lorem ipsum dolor ", count: 300)),
            ]
            for text in texts {
                let same = try db.query(
                    "SELECT $1::tsvector = setweight(to_tsvector('vaultsync_search', $2), 'B') || to_tsvector('vaultsync_search', $3)",
                    [SearchVector.literal(values: text.values, body: text.body), text.values, text.body]
                ).first?.bool(0)
                #expect(same == true, "\(text.values) / \(text.body.prefix(40))")
            }
        }
    }
}
