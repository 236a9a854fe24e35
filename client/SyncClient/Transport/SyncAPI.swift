public import Foundation
public import SyncProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Who a vault call is made as: an access token, a registered device and optionally a vault name.
public struct VaultSession: Sendable, Equatable {
    public var accessToken: String
    public var deviceID: UUID
    public var vault: String?
    /// In an encrypted vault, the generation whose name key the request's paths are under (nil: 1).
    public var namesGeneration: Int?

    public init(accessToken: String, deviceID: UUID, vault: String? = nil, namesGeneration: Int? = nil) {
        self.accessToken = accessToken
        self.deviceID = deviceID
        self.vault = vault
        self.namesGeneration = namesGeneration
    }
}

/// Typed calls for every endpoint of the sync protocol, plus blob transfers to presigned URLs.
/// One value per server; it holds no mutable state.
public struct SyncAPI: Sendable {
    /// The server's base URL.
    public let baseURL: URL
    let transport: any HTTPTransport

    public init(baseURL: URL, transport: any HTTPTransport = AsyncHTTPTransport()) {
        self.baseURL = baseURL
        self.transport = transport
    }

    // MARK: vault

    /// `GET /vault/state`, one page: pass the previous answer's cursor to get what changed after it;
    /// `skip` leaves out folders (`Archive/`) of a plain vault.
    public func state(_ session: VaultSession, cursor: String? = nil, since: Date? = nil, limit: Int? = nil, skip: [String] = []) async throws -> VaultStateResponse {
        var query: [URLQueryItem] = skip.map { URLQueryItem(name: "skip", value: $0) }
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        if let since { query.append(URLQueryItem(name: "since", value: WireDate.format(since))) }
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        return try await call("GET", "vault/state", query: query, body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `POST /vault/push`; `framed`: the inline bytes after the JSON (``FramedBody``), for a server
    /// whose state answer said it takes them (`framed_bodies`).
    public func push(_ request: PushRequest, session: VaultSession, framed: Bool = false) async throws -> PushResponse {
        guard framed else { return try await call("POST", "vault/push", body: request, headers: headers(session)) }
        return try await call("POST", "vault/push", encoded: (try FramedBody.encode(request), FramedBody.contentType), headers: headers(session))
    }

    public func confirm(_ request: ConfirmRequest, session: VaultSession) async throws -> ConfirmResponse {
        try await call("POST", "vault/push/confirm", body: request, headers: headers(session))
    }

    /// `POST /vault/pull`: the answer framed (``FramedBody``) when the server can, else JSON.
    public func pull(_ request: PullRequest, session: VaultSession) async throws -> PullResponse {
        var headers = headers(session)
        headers["Accept"] = "\(FramedBody.contentType), application/json"
        return try await call("POST", "vault/pull", body: request, headers: headers)
    }

    /// `POST /vault/export`: starts an export job.
    public func startExport(_ session: VaultSession) async throws -> ExportStatus {
        try await call("POST", "vault/export", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `GET /vault/export/{id}`: an export job's state, and its download URL once ready.
    public func exportStatus(_ id: UUID, session: VaultSession) async throws -> ExportStatus {
        try await call("GET", "vault/export/\(id.uuidString.lowercased())", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `GET /vault/usage`: the account's usage and limits.
    public func usage(_ session: VaultSession) async throws -> UsageResponse {
        try await call("GET", "vault/usage", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `GET /vault/key`: the envelope of an encrypted vault (`404 not_found` for a plain one).
    public func key(_ session: VaultSession) async throws -> KeyEnvelope {
        try await call("GET", "vault/key", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `GET /vault/key/revisions`: the envelopes the vault had before its current one, newest first.
    public func keyRevisions(_ session: VaultSession) async throws -> KeyRevisions {
        try await call("GET", "vault/key/revisions", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `PUT /vault/key`: creates the envelope of an empty vault, or replaces it at `expectedRevision`.
    public func putKey(_ request: PutKeyRequest, session: VaultSession) async throws -> KeyEnvelope {
        try await call("PUT", "vault/key", body: request, headers: headers(session))
    }

    /// `GET /vault/history?path=`: every retained version of `path`, newest first.
    public func history(_ path: VaultPath, session: VaultSession) async throws -> HistoryResponse {
        try await call("GET", "vault/history", query: [URLQueryItem(name: "path", value: path.rawValue)], body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `GET /vault/search`: the plain vault's current notes matching `query`, best first.
    public func search(_ query: String, under folder: String? = nil, limit: Int? = nil, session: VaultSession) async throws -> SearchResponse {
        var items = [URLQueryItem(name: "q", value: query)]
        if let folder { items.append(URLQueryItem(name: "under", value: folder)) }
        if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
        return try await call("GET", "vault/search", query: items, body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `POST /vault/restore`: the old version's content becomes the next version.
    public func restore(_ request: RestoreRequest, session: VaultSession) async throws -> RestoreResponse {
        try await call("POST", "vault/restore", body: request, headers: headers(session))
    }

    /// `POST /vault/restore-deleted`: every file deleted in the window comes back as a new version.
    public func restoreAsOf(_ request: RestoreAsOfRequest, session: VaultSession) async throws -> RestoreAsOfResponse {
        try await call("POST", "vault/restore-as-of", body: request, headers: headers(session))
    }

    public func importVersions(_ request: ImportRequest, session: VaultSession) async throws -> ImportResponse {
        try await call("POST", "vault/import", body: request, headers: headers(session))
    }

    public func restoreDeleted(_ request: RestoreDeletedRequest, session: VaultSession) async throws -> RestoreDeletedResponse {
        try await call("POST", "vault/restore-deleted", body: request, headers: headers(session))
    }

    /// `GET /vault/repair`: a page of the vault's damaged blobs (after `after`), each with an upload URL.
    public func repairList(after: ContentHash? = nil, session: VaultSession) async throws -> RepairList {
        let query = after.map { [URLQueryItem(name: "after", value: $0.rawValue)] } ?? []
        return try await call("GET", "vault/repair", query: query, body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `POST /vault/repair/confirm`: the damaged blobs uploaded again, for the server to check.
    public func confirmRepair(_ request: RepairConfirmRequest, session: VaultSession) async throws -> RepairConfirmResponse {
        try await call("POST", "vault/repair/confirm", body: request, headers: headers(session))
    }

    /// `POST /vault/conflicts`: keeps this device's unmerged version on the server.
    public func recordConflict(_ request: RecordConflictRequest, session: VaultSession) async throws -> RecordConflictResponse {
        try await call("POST", "vault/conflicts", body: request, headers: headers(session))
    }

    /// `POST /vault/conflicts/{id}/confirm`: the record's bytes are uploaded.
    public func confirmConflict(_ id: UUID, session: VaultSession) async throws -> ConflictInfo {
        try await call("POST", "vault/conflicts/\(id.uuidString.lowercased())/confirm", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `GET /vault/conflicts`: the vault's open conflicts, from every device; with `ids`, those
    /// records whether open or closed.
    public func conflicts(session: VaultSession, ids: [UUID]? = nil) async throws -> ConflictListResponse {
        let query = ids.map { [URLQueryItem(name: "ids", value: $0.map { $0.uuidString.lowercased() }.joined(separator: ","))] } ?? []
        return try await call("GET", "vault/conflicts", query: query, body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `POST /vault/conflicts/resolve`: closes every open record of a path.
    public func resolveConflict(_ request: ResolveConflictRequest, session: VaultSession) async throws -> ResolveConflictResponse {
        try await call("POST", "vault/conflicts/resolve", body: request, headers: headers(session))
    }

    /// `POST /vault/uploads`: starts, or finds again, this device's multipart upload of a blob.
    public func startUpload(_ request: StartUploadRequest, session: VaultSession) async throws -> UploadSession {
        try await call("POST", "vault/uploads", body: request, headers: headers(session))
    }

    /// `POST /vault/uploads/{id}/parts`: URLs for parts, each bound to its SHA-256.
    public func uploadParts(_ id: UUID, _ request: UploadPartsRequest, session: VaultSession) async throws -> UploadPartsResponse {
        try await call("POST", "vault/uploads/\(id.uuidString.lowercased())/parts", body: request, headers: headers(session))
    }

    /// `POST /vault/uploads/{id}/complete`: the parts become the blob, its hash checked.
    public func completeUpload(_ id: UUID, session: VaultSession) async throws -> CompleteUploadResponse {
        try await call("POST", "vault/uploads/\(id.uuidString.lowercased())/complete", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// `DELETE /vault/uploads/{id}`: ends a session and discards its parts.
    public func abortUpload(_ id: UUID, session: VaultSession) async throws {
        let _: Empty = try await call("DELETE", "vault/uploads/\(id.uuidString.lowercased())", body: Optional<SignupRequest>.none, headers: headers(session))
    }

    public func delete(_ request: DeleteRequest, session: VaultSession) async throws -> DeleteResponse {
        try await call("POST", "vault/delete", body: request, headers: headers(session))
    }

    // MARK: plumbing

    struct Empty: Decodable {}

    func blobRequest(_ method: String, _ url: URL, headers: [String: String] = [:], session: VaultSession?) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if method == "PUT" { request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let session, url.scheme == baseURL.scheme, url.host == baseURL.host, url.port == baseURL.port {
            request.setValue("Bearer \(session.accessToken)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    func headers(_ session: VaultSession) -> [String: String] {
        var headers = ["Authorization": "Bearer \(session.accessToken)", SyncHeader.device: session.deviceID.uuidString.lowercased()]
        if let vault = session.vault { headers[SyncHeader.vault] = vault }
        if let names = session.namesGeneration { headers[SyncHeader.namesGeneration] = String(names) }
        return headers
    }

    func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Body?, headers: [String: String] = [:], versioned: Bool = true
    ) async throws -> Answer {
        let encoded = try body.map { (try WireCoding.encoder().encode($0), "application/json") }
        return try await call(method, path, query: query, encoded: encoded, headers: headers, versioned: versioned)
    }

    /// A call with its body already encoded (`contentType` says how); the answer is read as its
    /// `Content-Type` says (JSON, or a framed body).
    func call<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], encoded body: (data: Data, contentType: String)?, headers: [String: String] = [:],
        versioned: Bool = true
    ) async throws -> Answer {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty {
            components.queryItems = query
            // URLComponents leaves `+` as it is, which a server may read as a space (an email's `+`).
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        if versioned { request.setValue(String(ProtocolVersion.current), forHTTPHeaderField: SyncHeader.protocolVersion) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body.data
            request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await transport.send(request)
        try check(response, data)
        if Answer.self == Empty.self { return Empty() as! Answer }
        do {
            if FramedBody.names(response.value(forHTTPHeaderField: "Content-Type")) { return try FramedBody.decode(Answer.self, from: data) }
            return try WireCoding.decoder().decode(Answer.self, from: data)
        } catch {
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: "undecodable \(Answer.self): \(error)")
        }
    }

    func check(_ response: HTTPURLResponse, _ body: Data) throws {
        guard (200..<300).contains(response.statusCode) else {
            if let envelope = try? WireCoding.decoder().decode(ErrorEnvelope.self, from: body) {
                throw SyncAPIError.server(status: response.statusCode, error: envelope.error)
            }
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: String(decoding: body.prefix(500), as: UTF8.self))
        }
    }
}
