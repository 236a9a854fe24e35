public import SyncProtocol

/// A failed API call.
public enum SyncAPIError: Error, Sendable, CustomStringConvertible {
    /// The server answered with its error envelope.
    case server(status: Int, error: ErrorBody)
    /// The server answered something that is not the protocol (a proxy page, say).
    case unexpectedResponse(status: Int, body: String)

    /// The error code, when the server sent one.
    public var code: ErrorCode? {
        if case .server(_, let error) = self { return error.code }
        return nil
    }

    /// Whether the server no longer accepts the device's session (signed out elsewhere, the
    /// device revoked, a refresh token reused): the device must sign in again.
    public var isSessionRefused: Bool {
        guard let code else { return false }
        return [.unauthorized, .invalidRefreshToken, .refreshTokenReused].contains(code)
    }

    /// The limit the server named (`batch_too_large`, `file_too_large`), when it sent one.
    public var limit: Int64? {
        if case .server(_, let error) = self { return error.limit }
        return nil
    }

    /// The server's message, or a description of the unexpected answer.
    public var serverMessage: String {
        if case .server(_, let error) = self { return error.message }
        return description
    }

    /// The HTTP status.
    public var status: Int {
        switch self {
        case .server(let status, _), .unexpectedResponse(let status, _): status
        }
    }

    public var description: String {
        switch self {
        case .server(let status, let error): "server answered \(status) \(error.code): \(error.message)"
        case .unexpectedResponse(let status, let body):
            // One line: the body may be a proxy's HTML page.
            "unexpected HTTP \(status) response (is this a VaultSync server?): \(body.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(200))"
        }
    }
}
