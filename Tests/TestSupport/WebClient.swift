public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// A browser as a test drives the web app: it keeps the sign-in cookie, follows no redirect (the
/// test sees each), and sends forms URL-encoded. ``with(_:_:)`` shuts it down, also on failure.
public final class WebClient: Sendable {
    /// One answer.
    public struct Page: Sendable, CustomStringConvertible {
        public let status: Int
        /// Each header's first value, by lower-cased name.
        public let headers: [String: String]
        public let body: String
        public var location: String? { headers["location"] }
        public var description: String { "HTTP \(status) \(headers)\n\(body)" }

        /// The value of the first hidden `form_token` field.
        public var formToken: String? {
            guard let range = body.range(of: "name=\"form_token\" value=\"") else { return nil }
            return String(body[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    public let base: URL
    private let client: HTTPClient
    private let cookies = Mutex<[String: String]>([:])

    private init(base: URL) {
        self.base = base
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    }

    /// Runs `body` with a new browser on the server at `base`.
    public static func with<T>(_ base: URL, _ body: (WebClient) async throws -> T) async throws -> T {
        let web = WebClient(base: base)
        do {
            let value = try await body(web)
            try await web.client.shutdown()
            return value
        } catch {
            try? await web.client.shutdown()
            throw error
        }
    }

    /// The sign-in cookie this browser holds (to replay it after signing out, say).
    public var heldCookie: String? {
        get { cookies.withLock { jar in jar["vaultsync_web"].map { "vaultsync_web=\($0)" } } }
        set { cookies.withLock { jar in jar["vaultsync_web"] = newValue.flatMap { $0.split(separator: "=", maxSplits: 1).last.map(String.init) } } }
    }

    public func get(_ path: String) async throws -> Page {
        try await send(HTTPClientRequest(url: base.absoluteString + path))
    }

    public func post(_ path: String, form: [String: String]) async throws -> Page {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = form.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: encoded))
        return try await send(request)
    }

    /// Signs in through the sign-in form, as a person does: the form first (its token and cookie), then the post.
    public func signIn(email: String, password: String) async throws -> Page {
        let form = try await get("/app/signin")
        return try await post("/app/signin", form: ["email": email, "password": password, "form_token": form.formToken ?? ""])
    }

    private func send(_ request: HTTPClientRequest) async throws -> Page {
        var request = request
        let header = cookies.withLock { jar in jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !header.isEmpty { request.headers.add(name: "Cookie", value: header) }
        // A guard against a hang, not a speed limit: on CI's two cores with every suite at once, a
        // sign-in through the local provider (two servers, PKCE, a token exchange) once took longer than 30 s.
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        var headers: [String: String] = [:]
        for header in response.headers where headers[header.name.lowercased()] == nil { headers[header.name.lowercased()] = header.value }
        for set in response.headers["set-cookie"] {
            guard let pair = set.split(separator: ";").first else { continue }
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            cookies.withLock { jar in jar[parts[0]] = parts.count == 2 && !parts[1].isEmpty ? parts[1] : nil }
        }
        return Page(status: Int(response.status.code), headers: headers, body: String(buffer: body))
    }
}
