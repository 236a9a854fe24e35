import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct PostgresWrapperTests {
    let pool: PostgresPool

    init() async throws {
        // A generous wait bound: under the whole suite's load the shared cluster can be slow to connect.
        pool = PostgresPool(connectionString: try await TestCluster.newDatabase(), maxConnections: 3, acquireTimeout: .seconds(120), logger: TestCluster.quietLogger)
    }

    @Test func parametersRoundTripAsText() async throws {
        let id = UUID()
        let date = Date(timeIntervalSince1970: 1_774_348_200.123456)
        let tricky = "quote ' double \" backslash \\ brace {} comma , 日本語 \u{1F600}"
        let row = try await pool.withConnection { db in
            try db.query("SELECT $1::text, $2::int, $3::bigint, $4::bool, $5::uuid, $6::timestamptz, $7::text IS NULL", [tricky, 42, Int64(1) << 40, true, id, date, String?.none]).first!
        }
        #expect(try row.string(0) == tricky)
        #expect(try row.int(1) == 42)
        #expect(try row.int64(2) == 1 << 40)
        #expect(try row.bool(3))
        #expect(try row.uuid(4) == id)
        #expect(abs(try row.date(5).timeIntervalSince(date)) < 0.000_001)
        #expect(try row.bool(6))
        await pool.close()
    }

    @Test func arraysBindForSetBasedStatements() async throws {
        let values = ["plain", "with \"quotes\"", "back\\slash", "{braces}", "comma,here", "", "NULL", "café \u{1F4DD} 日本\\\"", "\"starts", "\\\\\"\"ends\\"]
        let rows = try await pool.withConnection { db in
            try db.query("SELECT t.v, t.n FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS t(v, n, o) ORDER BY o", [values, Array(1...values.count)])
        }
        #expect(try rows.map { try $0.string(0) } == values)
        #expect(try rows.map { try $0.int(1) } == Array(1...values.count))
        // The same texts as their UTF-8 bytes (binary format): nothing to escape, the same values.
        let binary = try await pool.withConnection { db in
            try db.query("SELECT t.v FROM unnest($1::text[]) WITH ORDINALITY AS t(v, o) ORDER BY o", [values.map(PostgresBinaryText.init)])
        }
        #expect(try binary.map { try $0.string(0) } == values)
        let withNull = try await pool.withConnection { db in try db.query("SELECT v IS NULL FROM unnest($1::text[]) AS v", [[String?.none, "x"]]) }
        #expect(try withNull.map { try $0.bool(0) } == [true, false])
        await pool.close()
    }

    /// Binary parameters (a type's `typreceive` format) beside text ones in one statement, alone
    /// and as arrays of every length, and the same statement again once prepared.
    @Test func binaryParametersBindBesideText() async throws {
        let numbers: [BinaryInt4] = [7, -1, 0, .max, .min].map(BinaryInt4.init)
        for _ in 0..<2 {
            let rows = try await pool.withConnection { db in
                try db.query("SELECT $1::int4 + 1, $2::text, t.n, t.s FROM unnest($3::int4[], $4::text[]) AS t(n, s)", [BinaryInt4(41), "text's", numbers, numbers.map { "\($0.value)" }])
            }
            #expect(try rows.map { try $0.int(0) } == Array(repeating: 42, count: numbers.count))
            #expect(try rows.map { try $0.string(1) } == Array(repeating: "text's", count: numbers.count))
            #expect(try rows.map { try String($0.int64(2)) } == rows.map { try $0.string(3) })
        }
        let empty = try await pool.withConnection { db in try db.query("SELECT cardinality($1::int4[]), $2::int4", [[BinaryInt4](), BinaryInt4(5)]).first! }
        #expect(try empty.int(0) == 0 && empty.int(1) == 5)
        // An array of another element type is PostgreSQL's error, not a wrong value.
        await #expect(throws: PostgresError.self) {
            try await pool.withConnection { db in try db.query("SELECT $1::int8[]", [numbers]) }
        }
        await pool.close()
    }

    @Test func serverErrorsCarrySQLState() async throws {
        try await pool.withConnection { db in try db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)") }
        _ = try await pool.withConnection { db in try db.query("INSERT INTO u VALUES ($1)", ["a"]) }
        await #expect {
            try await pool.withConnection { db in try db.query("INSERT INTO u VALUES ($1)", ["a"]) }
        } throws: { error in
            // The statement is named (its first line), its parameters never.
            let failure = error as? PostgresError
            return failure?.isUniqueViolation == true && failure?.statement == "INSERT INTO u VALUES ($1)" && "\(error)".contains("(in: INSERT INTO u VALUES ($1))")
        }
        await #expect(throws: PostgresError.self) {
            try await pool.withConnection { db in try db.query("SELECT * FROM no_such_table") }
        }
        // The connection stays usable after an error.
        #expect(try await pool.withConnection { db in try db.query("SELECT count(*) FROM u").first!.int(0) } == 1)
        await pool.close()
    }

    @Test func transactionsRollBackWhenTheBodyThrows() async throws {
        struct Boom: Error {}
        try await pool.withConnection { db in try db.execute("CREATE TABLE t (v INT)") }
        await #expect(throws: Boom.self) {
            try await pool.transaction { tx in
                try tx.query("INSERT INTO t VALUES ($1)", [1])
                throw Boom()
            }
        }
        _ = try await pool.transaction { tx in try tx.query("INSERT INTO t VALUES ($1)", [2]) }
        let values = try await pool.withConnection { db in try db.query("SELECT v FROM t").map { try $0.int(0) } }
        #expect(values == [2])
        await pool.close()
    }

    @Test func poolServesMoreTasksThanConnections() async throws {
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<40 {
                group.addTask { try await pool.withConnection { db in try db.query("SELECT $1::int FROM pg_sleep(0.01)", [i]).first!.int(0) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0..<40))
        let backends = try await pool.withConnection { db in
            try db.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()").first!.int(0)
        }
        #expect(backends <= 3)
        await pool.close()
    }

    @Test func badConnectionStringIsAConnectionError() async throws {
        let broken = PostgresPool(connectionString: "host=/nonexistent-socket-dir dbname=x", maxConnections: 1, logger: TestCluster.quietLogger)
        await #expect {
            try await broken.withConnection { _ in 1 }
        } throws: { error in
            (error as? PostgresError)?.kind == .connection
        }
        await broken.close()
    }

    @Test(arguments: [0.0, 1_774_348_200.123456, -86_400.5, 4_102_444_800.999999])
    func timestampTextRoundTrips(_ seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let text = PostgresTimestamp.format(date)
        let postgresStyle = text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "+00")
        let parsed = try #require(PostgresTimestamp.parse(postgresStyle))
        #expect(abs(parsed.timeIntervalSince(date)) < 0.000_001)
    }
}

/// `int4` sent in its binary format (four bytes, big-endian): a binary parameter the wrapper
/// knows nothing of.
private struct BinaryInt4: PostgresBinaryElement {
    static let postgresTypeOID: UInt32 = 23
    let value: Int32
    init(_ value: Int32) { self.value = value }
    var postgresBinary: [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    var postgresText: String? { String(value) }
}
