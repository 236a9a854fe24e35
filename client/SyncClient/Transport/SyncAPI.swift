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

    public init(accessToken: String, deviceID: UUID, vault: String? = nil) {
        self.accessToken = accessToken
        self.deviceID = deviceID
        self.vault = vault
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

    // MARK: account

    /// `GET /health`. A server up without its database says so in the body (`200`; older servers
    /// answered `503`): either is turned into the `unavailable` error it stands for, so a
    /// sync counts it as a server that cannot serve now.
    public func health() async throws -> HealthResponse {
        let health: HealthResponse
        do {
            health = try await call("GET", "health", body: Optional<SignupRequest>.none, versioned: false)
        } catch SyncAPIError.unexpectedResponse(let status, let body) where status == 503 {
            guard let health = try? WireCoding.decoder().decode(HealthResponse.self, from: Data(body.utf8)), health.database == "unavailable" else {
                throw SyncAPIError.unexpectedResponse(status: status, body: body)
            }
            throw Self.databaseUnavailable
        }
        if health.database == "unavailable" { throw Self.databaseUnavailable }
        return health
    }

    private static let databaseUnavailable = SyncAPIError.server(status: 503, error: ErrorBody(code: .unavailable, message: "the server's database is unavailable"))

    public func signup(email: String, password: String) async throws -> AuthTokens {
        try await call("POST", "auth/signup", body: SignupRequest(email: email, password: password))
    }

    public func login(email: String, password: String, signInTicket: String? = nil) async throws -> AuthTokens {
        try await call("POST", "auth/login", body: LoginRequest(email: email, password: password, signInTicket: signInTicket))
    }

    /// Signs in with an ID token of a provider the server trusts (Sign in with Apple, OIDC).
    /// A nonce for a sign-in through a provider (`GET /auth/nonce`): request the ID token with it.
    public func identityNonce() async throws -> IdentityNonce {
        try await call("GET", "auth/nonce", body: Optional<LoginRequest>.none)
    }

    public func login(provider: String, idToken: String, nonce: String? = nil) async throws -> AuthTokens {
        try await call("POST", "auth/login", body: LoginRequest(provider: provider, idToken: idToken, nonce: nonce))
    }

    /// The ways the account signs in.
    public func identities(accessToken: String) async throws -> LinkedIdentities {
        try await call("GET", "auth/identities", body: Optional<LinkIdentityRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Links another provider's identity (proved by its ID token) to the account.
    public func linkIdentity(_ request: LinkIdentityRequest, accessToken: String) async throws -> LinkedIdentities {
        try await call("POST", "auth/identities", body: request, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Unlinks a provider from the account (never the last way to sign in).
    public func unlinkIdentity(provider: String, accessToken: String) async throws -> LinkedIdentities {
        try await call("DELETE", "auth/identities/\(provider)", body: Optional<LinkIdentityRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    public func refresh(refreshToken: String) async throws -> AuthTokens {
        try await call("POST", "auth/refresh", body: RefreshRequest(refreshToken: refreshToken))
    }

    public func logout(refreshToken: String) async throws {
        let _: Empty = try await call("POST", "auth/logout", body: RefreshRequest(refreshToken: refreshToken))
    }

    /// Changes the account's password; the account's other sessions end.
    public func changePassword(_ request: ChangePasswordRequest, accessToken: String) async throws {
        let _: Empty = try await call("POST", "auth/password", body: request, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Deletes the account and everything of it on the server; answers once it is gone.
    public func deleteAccount(password: String, accessToken: String) async throws -> AccountDeletion {
        try await deleteAccount(DeleteAccountRequest(password: password), accessToken: accessToken)
    }

    /// Deletes the account, proved by the password or a fresh ID token of a linked provider.
    public func deleteAccount(_ proof: DeleteAccountRequest, accessToken: String) async throws -> AccountDeletion {
        try await call("DELETE", "account", body: proof, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// The account's vaults.
    public func vaults(accessToken: String) async throws -> [VaultInfo] {
        let list: VaultList = try await call("GET", "vaults", body: Optional<VaultNameRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
        return list.vaults
    }

    public func createVault(named name: String, accessToken: String) async throws -> VaultInfo {
        try await call("POST", "vaults", body: VaultNameRequest(name: name), headers: ["Authorization": "Bearer \(accessToken)"])
    }

    public func renameVault(_ id: UUID, to name: String, accessToken: String) async throws -> VaultInfo {
        try await call("PATCH", "vaults/\(id.uuidString.lowercased())", body: VaultNameRequest(name: name), headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Deletes a vault with everything in it; `confirmName` must be its current name.
    public func deleteVault(_ id: UUID, confirmName: String, accessToken: String) async throws -> VaultDeletion {
        try await call("DELETE", "vaults/\(id.uuidString.lowercased())", body: DeleteVaultRequest(confirmName: confirmName), headers: ["Authorization": "Bearer \(accessToken)"])
    }

    public func registerDevice(_ request: RegisterDeviceRequest, accessToken: String) async throws -> DeviceInfo {
        try await call("POST", "devices/register", body: request, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    public func devices(accessToken: String) async throws -> DeviceList {
        try await call("GET", "devices", body: Optional<SignupRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Renames one of the account's devices.
    public func renameDevice(_ deviceID: UUID, to name: String, accessToken: String) async throws -> DeviceInfo {
        try await call("PATCH", "devices/\(deviceID.uuidString.lowercased())", body: RenameDeviceRequest(deviceName: name), headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Revokes one of the account's devices: its sessions end at once, on every server instance.
    public func revokeDevice(_ deviceID: UUID, accessToken: String) async throws {
        let _: Empty = try await call("DELETE", "devices/\(deviceID.uuidString.lowercased())", body: Optional<RenameDeviceRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// `GET /sessions`: the account's live sessions (sign-ins), oldest first.
    public func sessions(accessToken: String) async throws -> SessionList {
        try await call("GET", "sessions", body: Optional<SignupRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// `DELETE /sessions/{id}`: ends one of the account's sessions.
    public func endSession(_ sessionID: UUID, accessToken: String) async throws {
        let _: Empty = try await call("DELETE", "sessions/\(sessionID.uuidString.lowercased())", body: Optional<RenameDeviceRequest>.none, headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// Sets the device's push token (an app calls this whenever its push service hands it a new
    /// one), or with nil removes it.
    public func setPushToken(_ request: PushTokenRequest?, deviceID: UUID, accessToken: String) async throws {
        let path = "devices/\(deviceID.uuidString.lowercased())/push-token"
        let headers = ["Authorization": "Bearer \(accessToken)"]
        if let request {
            let _: Empty = try await call("PUT", path, body: request, headers: headers)
        } else {
            let _: Empty = try await call("DELETE", path, body: Optional<PushTokenRequest>.none, headers: headers)
        }
    }

    // MARK: vault

    /// `GET /vault/state`, one page: pass the previous answer's cursor to get what changed after it.
    public func state(_ session: VaultSession, cursor: String? = nil, since: Date? = nil, limit: Int? = nil) async throws -> VaultStateResponse {
        var query: [URLQueryItem] = []
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        if let since { query.append(URLQueryItem(name: "since", value: WireDate.format(since))) }
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        return try await call("GET", "vault/state", query: query, body: Optional<SignupRequest>.none, headers: headers(session))
    }

    public func push(_ request: PushRequest, session: VaultSession) async throws -> PushResponse {
        try await call("POST", "vault/push", body: request, headers: headers(session))
    }

    public func confirm(_ request: ConfirmRequest, session: VaultSession) async throws -> ConfirmResponse {
        try await call("POST", "vault/push/confirm", body: request, headers: headers(session))
    }

    public func pull(_ request: PullRequest, session: VaultSession) async throws -> PullResponse {
        try await call("POST", "vault/pull", body: request, headers: headers(session))
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

    /// `POST /vault/restore`: the old version's content becomes the next version.
    public func restore(_ request: RestoreRequest, session: VaultSession) async throws -> RestoreResponse {
        try await call("POST", "vault/restore", body: request, headers: headers(session))
    }

    /// `POST /vault/restore-deleted`: every file deleted in the window comes back as a new version.
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

    // MARK: blobs
    //
    // Blob URLs on the server's own origin (the built-in store, or a server in proxied mode) also
    // get the session's bearer token; URLs elsewhere (S3) never do.

    /// PUTs `data` to an upload URL with the headers the push answer listed.
    public func uploadBlob(_ data: Data, to url: URL, headers: [String: String] = [:], session: VaultSession? = nil) async throws {
        var request = blobRequest("PUT", url, headers: headers, session: session)
        request.httpBody = data
        let (body, response) = try await transport.send(request)
        try check(response, body)
    }

    /// PUTs a file's bytes to an upload URL, streamed from disk.
    public func uploadBlob(file: URL, to url: URL, headers: [String: String] = [:], session: VaultSession? = nil) async throws {
        let request = blobRequest("PUT", url, headers: headers, session: session)
        let (body, response) = try await transport.upload(request, fromFile: file)
        try check(response, body)
    }

    /// PUTs the bytes of `file` in `range` (one part of a large file), streamed from disk.
    public func uploadBlob(file: URL, range: Range<Int64>, to url: URL, headers: [String: String] = [:], session: VaultSession? = nil) async throws {
        let request = blobRequest("PUT", url, headers: headers, session: session)
        let (body, response) = try await transport.upload(request, fromFile: file, range: range)
        try check(response, body)
    }

    /// GETs a download URL into memory (small files).
    public func downloadBlob(from url: URL, session: VaultSession? = nil) async throws -> Data {
        let (body, response) = try await transport.send(blobRequest("GET", url, session: session))
        try check(response, body)
        return body
    }

    /// GETs a download URL into `partial`, continuing what it already holds (`Range: bytes=N-`):
    /// an interrupted download resumes where it stopped. A server that answers the whole blob
    /// instead (`200`) starts the file over; one that has nothing after N (`416`, the partial is
    /// whole or longer) too. The caller checks the result's hash.
    public func downloadBlob(from url: URL, into partial: URL, session: VaultSession? = nil) async throws {
        let have = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value ?? 0
        let headers = have > 0 ? ["Range": "bytes=\(have)-"] : [:]
        let (response, body) = try await transport.download(blobRequest("GET", url, headers: headers, session: session), into: partial, resumingAt: have)
        let resumedAt = response.value(forHTTPHeaderField: "Content-Range").flatMap { Self.rangeStart($0) }
        if have > 0, response.statusCode == 416 || (response.statusCode == 206 && resumedAt != have) {
            try? FileManager.default.removeItem(at: partial)
            return try await downloadBlob(from: url, into: partial, session: session)
        }
        guard (200..<300).contains(response.statusCode) else {
            try check(response, body)
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: "")
        }
    }

    /// N of `Content-Range: bytes N-M/T`.
    static func rangeStart(_ header: String) -> Int64? {
        guard header.hasPrefix("bytes ") else { return nil }
        return Int64(header.dropFirst("bytes ".count).prefix { $0 != "-" })
    }

    /// GETs a download URL into a temporary file; the caller moves or removes it.
    public func downloadBlobToFile(from url: URL, session: VaultSession? = nil) async throws -> URL {
        let (file, response) = try await transport.download(blobRequest("GET", url, session: session))
        guard (200..<300).contains(response.statusCode) else {
            let body = (try? Data(contentsOf: file)) ?? Data()
            try? FileManager.default.removeItem(at: file)
            try check(response, body)
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: "")
        }
        return file
    }

    /// `GET /vault/events` as a long poll: other devices' changes after `cursor`, waiting up to
    /// `wait` seconds for one (then an `idle` event).
    public func events(_ session: VaultSession, cursor: String, wait: Int) async throws -> VaultEvent {
        try await call("GET", "vault/events", query: [URLQueryItem(name: "cursor", value: cursor), URLQueryItem(name: "wait", value: String(wait))], body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// The headers of a vault request (for the change feed's WebSocket, which does not go
    /// through ``call``).
    func vaultHeaders(_ session: VaultSession) -> [String: String] {
        headers(session).merging([SyncHeader.protocolVersion: String(ProtocolVersion.current)]) { $1 }
    }

    // MARK: plumbing

    private struct Empty: Decodable {}

    private func blobRequest(_ method: String, _ url: URL, headers: [String: String] = [:], session: VaultSession?) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if method == "PUT" { request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let session, url.scheme == baseURL.scheme, url.host == baseURL.host, url.port == baseURL.port {
            request.setValue("Bearer \(session.accessToken)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    private func headers(_ session: VaultSession) -> [String: String] {
        var headers = ["Authorization": "Bearer \(session.accessToken)", SyncHeader.device: session.deviceID.uuidString.lowercased()]
        if let vault = session.vault { headers[SyncHeader.vault] = vault }
        return headers
    }

    private func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Body?, headers: [String: String] = [:], versioned: Bool = true
    ) async throws -> Answer {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        if versioned { request.setValue(String(ProtocolVersion.current), forHTTPHeaderField: SyncHeader.protocolVersion) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try WireCoding.encoder().encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await transport.send(request)
        try check(response, data)
        if Answer.self == Empty.self { return Empty() as! Answer }
        do {
            return try WireCoding.decoder().decode(Answer.self, from: data)
        } catch {
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: "undecodable \(Answer.self): \(error)")
        }
    }

    private func check(_ response: HTTPURLResponse, _ body: Data) throws {
        guard (200..<300).contains(response.statusCode) else {
            if let envelope = try? WireCoding.decoder().decode(ErrorEnvelope.self, from: body) {
                throw SyncAPIError.server(status: response.statusCode, error: envelope.error)
            }
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: String(decoding: body.prefix(500), as: UTF8.self))
        }
    }
}
