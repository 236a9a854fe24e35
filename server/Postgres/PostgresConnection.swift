import CLibPQ
import Foundation


/// One libpq connection. Every call blocks, so it is only used from a thread-pool thread, and by
/// one task at a time: ``PostgresPool`` hands it out exclusively. That invariant is what makes the
/// `@unchecked Sendable` sound.
public final class PostgresConnection: @unchecked Sendable {
    private(set) var handle: OpaquePointer?
    private let connectionString: String
    /// Statements the server answered since ``beginUse()``: with none, a lost connection cannot
    /// have committed anything of this use.
    public private(set) var statementsAnswered = 0
    /// Whether a `COMMIT` was sent since ``beginUse()``: after that a lost connection leaves the
    /// outcome unknown.
    public private(set) var commitSent = false
    /// Statements prepared on this connection, by their SQL: the server parses and plans each once
    /// per connection instead of once per call (parsing and planning were half of Postgres's CPU
    /// for a one-note push). At most ``preparedAtMost``; others run unnamed, as before.
    private var prepared: [String: String] = [:]
    private var preparedCount = 0
    /// Bounds the server's memory per connection should some SQL be built from values.
    static let preparedAtMost = 256

    /// Connects (blocking). Sessions use UTC so timestamps read back unambiguously.
    /// - Parameter connectionString: anything libpq accepts: the keyword form (`host=… dbname=…`)
    ///   or a URL (`postgresql://user@host:5432/db?sslmode=require`).
    /// - Throws: ``PostgresError`` of kind `.connection`.
    public init(connectionString: String) throws {
        self.connectionString = connectionString
        self.handle = try Self.connect(connectionString)
    }

    /// Whether a server at `connectionString` accepts connections now (libpq's `PQping`: no
    /// login, so it works before the database exists and says nothing about credentials).
    public static func accepts(_ connectionString: String) -> Bool {
        PQping(connectionString) == PQPING_OK
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    private static func connect(_ connectionString: String) throws -> OpaquePointer {
        // The string is passed as given: appending keywords would break the URL form. The time zone
        // is set on the session instead, which also leaves any `options` of the operator's intact.
        guard let conn = PQconnectdb(connectionString) else {
            throw PostgresError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines()
            PQfinish(conn)
            throw PostgresError(kind: .connection, message: message)
        }
        do {
            // No JIT: the server's statements are short, and compiling one took longer than
            // running it (190 ms of a 520 ms usage breakdown at 100,000 files).
            _ = try consume(PQexec(conn, "SET TIME ZONE 'UTC'; SET jit = off"), handle: conn)
        } catch {
            PQfinish(conn)
            throw error
        }
        return conn
    }

    /// Whether the connection is usable; a broken one is dropped by the pool.
    public var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Reads what the server sent while the connection sat idle, without blocking: a server that
    /// shut down or restarted has sent its goodbye and closed the socket, which turns the
    /// connection bad here instead of on the next request's first statement.
    public func checkAlive() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        // Twice: one read returns the server's goodbye message, the next finds the closed socket.
        for _ in 0..<2 where PQconsumeInput(handle) == 0 { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Starts a new use by one caller: resets ``statementsAnswered`` and ``commitSent``.
    public func beginUse() {
        statementsAnswered = 0
        commitSent = false
    }

    /// Runs one statement with parameters (`$1`, `$2`, ...), as text or, for a
    /// ``PostgresBinaryBindable``, in the type's binary format. Parameters are never
    /// interpolated into SQL. The statement is prepared on its first call on this connection.
    /// - Throws: ``PostgresError`` with the server's SQLSTATE.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> PostgresRows {
        guard let handle else { throw PostgresError(kind: .connection, message: "connection is closed") }
        let bound = parameters.map(BoundParameter.init)
        defer { bound.forEach { free($0.bytes) } }
        let name = try statementName(sql, handle: handle)
        // Lengths and formats only matter for binary parameters: libpq reads text ones to their NUL.
        let binary = bound.contains { $0.format == 1 }
        let values: [UnsafePointer<CChar>?] = bound.map { $0.bytes.map { UnsafePointer($0) } }
        let lengths = bound.map(\.length), formats = bound.map(\.format)
        let result: OpaquePointer? = values.withUnsafeBufferPointer { values in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in
                    let (values, lengths, formats) = bound.isEmpty ? (nil, nil, nil) : (values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    let (sizes, kinds) = binary ? (lengths, formats) : (nil, nil)
                    guard let name else { return PQexecParams(handle, sql, Int32(bound.count), nil, values, sizes, kinds, 0) }
                    return PQexecPrepared(handle, name, Int32(bound.count), values, sizes, kinds, 0)
                }
            }
        }
        let rows: PostgresRows
        do {
            rows = try Self.consume(result, handle: handle)
        } catch let error as PostgresError {
            // A table's columns changed under a prepared `*` ("cached plan must not change result
            // type"): the next call prepares it again.
            if error.sqlState == "0A000" { prepared[sql] = nil }
            throw error.naming(sql)
        }
        statementsAnswered += 1
        return rows
    }

    /// The name `sql` is prepared under on this connection, preparing it now if it is not yet;
    /// nil once ``preparedAtMost`` are. A statement the server refuses to prepare is not kept:
    /// its error is the one the call would have met.
    private func statementName(_ sql: String, handle: OpaquePointer) throws -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.preparedAtMost else { return nil }
        preparedCount += 1
        let name = "vs\(preparedCount)"
        do {
            _ = try Self.consume(PQprepare(handle, name, sql, 0, nil), handle: handle)
        } catch let error as PostgresError {
            throw error.naming(sql)
        }
        prepared[sql] = name
        return name
    }

    /// Runs one or more statements without parameters (migrations, `BEGIN`/`COMMIT`).
    public func execute(_ sql: String) throws {
        guard let handle else { throw PostgresError(kind: .connection, message: "connection is closed") }
        _ = try Self.consume(PQexec(handle, sql), handle: handle)
        statementsAnswered += 1
    }

    private static func consume(_ result: OpaquePointer?, handle: OpaquePointer) throws -> PostgresRows {
        guard let result else {
            let kind: PostgresError.Kind = PQstatus(handle) == CONNECTION_OK ? .query : .connection
            throw PostgresError(kind: kind, message: String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines())
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            break
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines()
            // A statement that failed because the server went away is a lost connection, not a
            // bad statement: libpq's status says which.
            guard PQstatus(handle) == CONNECTION_OK else {
                throw PostgresError(kind: .connection, message: "the connection to the database was lost: \(message)")
            }
            throw PostgresError(kind: .query, sqlState: state, message: message)
        }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows = [[String?]]()
        rows.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            var row = [String?]()
            row.reserveCapacity(columnCount)
            for c in 0..<columnCount {
                if PQgetisnull(result, Int32(r), Int32(c)) == 1 {
                    row.append(nil)
                } else {
                    row.append(String(cString: PQgetvalue(result, Int32(r), Int32(c))))
                }
            }
            rows.append(row)
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresRows(columns: columns, values: rows, affectedRows: affected)
    }

    /// Runs `body` inside `BEGIN`/`COMMIT`, rolling back if it throws.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body(self)
            commitSent = true
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Closes the connection now.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var s = Substring(self)
        while s.last?.isNewline == true { s = s.dropLast() }
        return String(s)
    }
}

/// One parameter as libpq takes it: its bytes in memory of their own (freed after the call; nil
/// for SQL NULL), their length and format (0: text, ended by a NUL; 1: binary).
private struct BoundParameter {
    let bytes: UnsafeMutablePointer<CChar>?
    let length: Int32
    let format: Int32

    init(_ parameter: any PostgresBindable) {
        if let binary = parameter as? any PostgresBinaryBindable {
            let value = binary.postgresBinary
            let bytes = malloc(max(value.count, 1))!.assumingMemoryBound(to: CChar.self)
            value.withUnsafeBytes { raw in raw.baseAddress.map { UnsafeMutableRawPointer(bytes).copyMemory(from: $0, byteCount: raw.count) } }
            (self.bytes, length, format) = (bytes, Int32(value.count), 1)
        } else {
            (bytes, length, format) = (parameter.postgresText.flatMap { strdup($0) }, 0, 0)
        }
    }
}
