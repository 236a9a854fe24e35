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
        ("", "Über ÜBER über LongerThanEightBytes longerthaneightbytes", "'uber':1,2,3 'longerthaneightbytes':4,5"),
        ("", String(repeating: "x ", count: 300), "'x':" + (1...255).map(String.init).joined(separator: ",")),
        ("", String(repeating: "w ", count: 16_382) + "a b c", "'w':" + (1...255).map(String.init).joined(separator: ",") + " 'a':16383 'b':16383 'c':16383"),
        ("", String(repeating: "Ab", count: 1_024) + " ok", "'ok':2"),
        ("", String(repeating: "é", count: 2_046) + " ok", "'" + String(repeating: "e", count: 2_046) + "':1 'ok':2"),
        ("", String(repeating: "é", count: 2_047) + " ok", "'ok':2"),
    ]

    @Test(arguments: cases) func literal(_ c: (values: String, body: String, literal: String)) {
        #expect(SearchVector(values: c.values, body: c.body).literal == c.literal)
    }

    /// A key that puts every word in one place makes probes run long: the table takes a new key
    /// and the vector is the same.
    @Test func aKeyThatCollidesIsReplaced() {
        let body = (0..<500).map { "word\($0)" }.joined(separator: " ") + " word7 word499"
        let colliding = WordTable.Key(seed: 0, multiplier: 1, spread: 0)
        #expect(SearchVector(values: "", body: body, key: colliding) == SearchVector(values: "", body: body))
        var table = WordTable(expecting: 4, key: colliding)
        for index in 0..<200 { _ = "w\(index)".utf8.withContiguousStorageIfAvailable { table.index(of: $0) } }
        #expect(table.rekeyed >= 1)
        #expect(table.key != colliding)
    }

    /// The table as a table: each word once, in the order first met, found again after it grew.
    @Test func wordsAreKeptOnceInOrder() {
        var table = WordTable(expecting: 1)
        let words = (0..<1_000).map { "w\($0 % 700)" } + ["", "a much longer word than eight bytes", "a much longer word than eight byteS"]
        var found: [Int] = []
        var new = 0
        for word in words {
            let (index, isNew) = word.utf8.withContiguousStorageIfAvailable { table.index(of: $0) }!
            found.append(index)
            if isNew { new += 1 }
        }
        #expect(table.count == 703 && new == 703)
        #expect(found[0..<700] == ArraySlice(0..<700))
        #expect(found[700..<1_000] == ArraySlice(0..<300))
        #expect(String(decoding: table.word(702), as: UTF8.self) == "a much longer word than eight byteS")
        #expect(table.word(700).isEmpty)
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
                let vector = SearchVector(values: text.values, body: text.body)
                let same = try db.query(
                    "SELECT $1::tsvector = setweight(to_tsvector('vaultsync_search', $2), 'B') || to_tsvector('vaultsync_search', $3)",
                    [vector, text.values, text.body]
                ).first?.bool(0)
                #expect(same == true, "\(text.values) / \(text.body.prefix(40))")
            }
        }
    }

    /// The binary form PostgreSQL reads is the vector of the table's literal, alone and in an
    /// array beside text parameters (as a write keeps texts), up to the limits on words and positions.
    @Test func theBinaryFormIsTheLiteralsVector() async throws {
        try await TestServer.with { server in
            let db = try PostgresConnection(connectionString: server.databaseURL)
            defer { db.close() }
            let vectors = Self.cases.map { SearchVector(values: $0.values, body: $0.body) }
            for (vector, c) in zip(vectors, Self.cases) {
                let row = try db.query("SELECT $1::tsvector = $2::tsvector, length($1::tsvector)", [vector, c.literal]).first
                #expect(try row?.bool(0) == true, "\(c.literal.prefix(60))")
                #expect(try row?.int(1) == Set(c.literal.split(separator: " ").map { $0.prefix { $0 != ":" } }).count)
            }
            let read = try db.query(
                "SELECT t.v = t.l::tsvector, t.n FROM unnest($1::tsvector[], $2::text[], $3::text[]) WITH ORDINALITY AS t(v, l, n, o) ORDER BY o",
                [vectors, Self.cases.map(\.literal), Self.cases.indices.map(String.init)])
            #expect(try read.map { try $0.bool(0) } == Array(repeating: true, count: Self.cases.count))
            #expect(try read.map { try $0.string(1) } == Self.cases.indices.map(String.init))
            let none = try db.query("SELECT count(*) FROM unnest($1::tsvector[])", [[SearchVector]()]).first
            #expect(try none?.int(0) == 0)
        }
    }
}
