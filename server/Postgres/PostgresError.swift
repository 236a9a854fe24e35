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

    public init(kind: Kind, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// `23505`: a unique constraint was violated.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Whether the database could not be reached (down, restarting, or every connection busy for
    /// too long): worth retrying later, not a fault of the request.
    public var isUnavailable: Bool { kind == .connection || kind == .acquireTimeout }
    /// `40001` or `40P01`: the transaction may succeed if retried.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        "postgres \(kind)\(sqlState.map { " [\($0)]" } ?? ""): \(message)"
    }
}
