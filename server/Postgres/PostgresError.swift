import Foundation

/// A failure reported by libpq or the server.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// Could not connect.
        case connection
        /// The server rejected a statement; `sqlState` says why.
        case query
        /// A value in a result could not be read as the requested type.
        case decoding
        /// The pool was shut down.
        case poolClosed
        /// No connection became free within the pool's acquire timeout (the database is down or
        /// every connection is busy).
        case acquireTimeout
    }

    public let kind: Kind
    /// The five-character SQLSTATE, when the server sent one.
    public let sqlState: String?
    public let message: String
    /// The statement that failed, its first line (at most 120 characters; parameters are never
    /// in it), so a log line names which one.
    public var statement: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, statement: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.statement = statement
    }

    /// This error, naming `sql` as the statement that failed.
    func naming(_ sql: String) -> PostgresError {
        var named = self
        let line = sql.split(whereSeparator: \.isNewline).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
        named.statement = String(line.trimmingCharacters(in: .whitespaces).prefix(120))
        return named
    }

    /// `23505`: a unique constraint was violated.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Whether the database could not be reached (down, restarting, or every connection busy for
    /// too long): worth retrying later, not a fault of the request.
    public var isUnavailable: Bool { kind == .connection || kind == .acquireTimeout }
    /// `40001` or `40P01`: the transaction may succeed if retried.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        // One line, so that a log line holds the whole of it.
        let words = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return "postgres \(kind)\(sqlState.map { " [\($0)]" } ?? ""): \(words)\(statement.map { " (in: \($0))" } ?? "")"
    }
}
