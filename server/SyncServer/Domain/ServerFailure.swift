/// What lay under a failure on the server's side (the statement, the store key and the store's
/// error, a provider's status): for the request's log line, never for its answer. Two failures of
/// the same kind are the same answer whatever their causes, so causes take no part in equality.
struct ErrorCause: Sendable, Equatable, CustomStringConvertible {
    let description: String

    /// `error` as the log names it (a database error names its statement's first line).
    init(_ error: any Error) { description = String(reflecting: error) }
    /// What was being done, and the error that stopped it (if one was thrown).
    init(_ what: String, _ error: (any Error)? = nil) { description = error.map { "\(what): \(String(reflecting: $0))" } ?? what }

    static func == (_: Self, _: Self) -> Bool { true }
}

/// A request the server could not carry out for a reason of its own (not the request's): each
/// kind says what failed and answers with its words (503 to retry shortly, 507 when space ran
/// out); the cause is for the log.
enum ServerFailure: Sendable, Equatable {
    /// The database cannot be reached or takes no more connections.
    case databaseDown(ErrorCause)
    /// The database's disk is full.
    case databaseFull(ErrorCause)
    /// The blob store's disk (or filesystem quota) is full.
    case storeFull(ErrorCause)
    /// Bytes the server made itself (a merge) could not be stored; `what` names them for the answer.
    case storeWriteFailed(what: String, ErrorCause)
    /// The blob store did not delete some of the bytes a deletion removes.
    case storeDeleteFailed(failed: Int, of: Int, ErrorCause)
    /// A WebDAV body could not be spooled to the server's disk, or was lost before it was stored.
    case spoolFailed(lost: Bool, ErrorCause)
    /// A sign-in provider could not be reached; `step` says for what.
    case providerUnreachable(provider: String, step: String, ErrorCause)
    /// A sign-in provider's discovery document lacks what the sign-in needs.
    case providerMisconfigured(provider: String, ErrorCause)
    /// More password checks at once than the server takes; the words come with the executor.
    case busy(String)
    /// The server is stopping and takes no new background work (an export).
    case shuttingDown(what: String)

    /// The failure's cause, for the log (nil for the server's own refusals: busy, stopping).
    var cause: ErrorCause? {
        switch self {
        case .databaseDown(let c), .databaseFull(let c), .storeFull(let c), .storeWriteFailed(_, let c), .storeDeleteFailed(_, _, let c),
            .spoolFailed(_, let c), .providerUnreachable(_, _, let c), .providerMisconfigured(_, let c):
            c
        case .busy, .shuttingDown: nil
        }
    }

    /// Whether the answer is 507 (space ran out: retried once it is freed) rather than 503.
    var isOutOfSpace: Bool {
        switch self {
        case .databaseFull, .storeFull, .storeWriteFailed, .spoolFailed: true
        default: false
        }
    }

    /// Seconds a client is told to wait before trying again.
    var retryAfterSeconds: Int {
        switch self {
        case .databaseDown, .shuttingDown: 5
        case .busy: 2
        case .providerUnreachable: 10
        case .storeDeleteFailed: 30
        // Space comes back when an operator frees it: a minute is soon enough to look again.
        case .databaseFull, .storeFull, .storeWriteFailed, .spoolFailed, .providerMisconfigured: 60
        }
    }

    /// The answer's words: what failed and what to do, naming nothing internal.
    var message: String {
        switch self {
        case .databaseDown: "the database is unavailable; nothing was changed: try again shortly"
        case .databaseFull: "the server's database is out of disk space; nothing was changed: try again once space is free"
        case .storeFull: "the server's storage is full; the upload was not stored: try again once space is free"
        case .storeWriteFailed(let what, _): "the server could not store \(what): try again"
        case .storeDeleteFailed(let failed, let of, _):
            "the blob store did not delete \(failed) of \(of) files: nothing else was deleted; send the same request again"
        case .spoolFailed(let lost, _):
            lost ? "the file received was lost before it was stored: send it again" : "the server could not make room to receive this file: its disk may be full"
        case .providerUnreachable(let provider, let step, _): "\(provider) could not be reached\(step): try again shortly"
        case .providerMisconfigured(let provider, _): "\(provider) does not offer the sign-in this page needs: tell the server's operator"
        case .busy(let words): words
        case .shuttingDown(let what): "the server is shutting down: \(what) again in a moment"
        }
    }
}
