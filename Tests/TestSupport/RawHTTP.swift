public import Foundation
public import SyncProtocol
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Raw HTTP for tests that send what a well-behaved client never would (malformed JSON, wrong
/// types, missing headers) and read the error envelope back.
public enum RawHTTP {
    /// The answer: status, body, and the error envelope if the body is one.
    public struct Answer: Sendable {
        public let status: Int
        public let body: Data
        /// The `Retry-After` header, when sent.
        public var retryAfter: String? = nil
        /// The `Allow` header, when sent.
        public var allow: String? = nil
        /// Every header, by lower-cased name.
        public var headers: [String: String] = [:]
        public var envelope: ErrorEnvelope? { try? WireCoding.decoder().decode(ErrorEnvelope.self, from: body) }
        public var code: ErrorCode? { envelope?.error.code }
        /// The body as a JSON object, or nil.
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

        public init(status: Int, body: Data, retryAfter: String? = nil, allow: String? = nil, headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.retryAfter = retryAfter
            self.allow = allow
            self.headers = headers
        }
    }

    /// A session that opens as many connections at once as it is asked for (the shared one keeps
    /// a few per host and queues the rest), for tests that need requests to arrive together.
    public static let parallel: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 256
        // A guard against a hang, not a measure: under the whole suite on two cores, sixteen queued
        // sign-ins hashed one at a time outran the default 60 s (LoginStormTests).
        configuration.timeoutIntervalForRequest = 300
        return URLSession(configuration: configuration)
    }()

    /// Sends a request; `protocolVersion: nil` leaves the protocol header out.
    public static func send(
        _ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:], protocolVersion: String? = "1",
        session: URLSession = .shared
    ) async throws -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let protocolVersion { request.setValue(protocolVersion, forHTTPHeaderField: SyncHeader.protocolVersion) }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        let headers = Dictionary(http.allHeaderFields.compactMap { key, value in (key as? String).map { ($0.lowercased(), "\(value)") } }, uniquingKeysWith: { a, _ in a })
        return Answer(
            status: http.statusCode, body: data, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), allow: http.value(forHTTPHeaderField: "Allow"),
            headers: headers)
    }

    /// The headers of an authenticated vault call for `session`.
    public static func vaultHeaders(_ token: String, device: UUID) -> [String: String] {
        ["Authorization": "Bearer \(token)", SyncHeader.device: device.uuidString]
    }
}
