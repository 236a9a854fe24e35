/// The body of every non-2xx answer: `{"error": {"code": "...", "message": "..."}}`.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public var error: ErrorBody
    public init(error: ErrorBody) { self.error = error }
    public init(code: ErrorCode, message: String) { self.error = ErrorBody(code: code, message: message) }
}

/// The error itself; optional fields appear only for the codes that use them.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// Stable machine code.
    public var code: ErrorCode
    /// Human-readable explanation: what happened and how to fix it.
    public var message: String
    /// The path the error is about, when there is one.
    public var path: String?
    /// For `unsupported_protocol`: the versions this server accepts.
    public var supportedVersions: [Int]?
    /// For `batch_too_large` and `file_too_large`: the limit that was exceeded.
    public var limit: Int64?
    /// The request id, for matching a report with the server's logs.
    public var requestID: String?
    /// For `quota_exceeded`: the account's usage and limits.
    public var usage: UsageResponse?

    public init(
        code: ErrorCode, message: String, path: String? = nil, supportedVersions: [Int]? = nil, limit: Int64? = nil, requestID: String? = nil,
        usage: UsageResponse? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.supportedVersions = supportedVersions
        self.limit = limit
        self.requestID = requestID
        self.usage = usage
    }

    enum CodingKeys: String, CodingKey {
        case code, message, path, limit, usage
        case supportedVersions = "supported_versions"
        case requestID = "request_id"
    }
}

/// A per-file failure inside an otherwise successful batch answer.
public struct FileError: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var code: ErrorCode
    public var message: String
    public init(path: VaultPath, code: ErrorCode, message: String) {
        self.path = path
        self.code = code
        self.message = message
    }
}
