public import Foundation
public import SyncProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Accounts, sign-in, devices and sessions.
extension SyncAPI {

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

    static let databaseUnavailable = SyncAPIError.server(status: 503, error: ErrorBody(code: .unavailable, message: "the server's database is unavailable"))

    /// Creates an account; `invitation` is an operator's invitation code (a server that takes no sign-ups needs one).
    public func signup(email: String, password: String, invitation: String? = nil) async throws -> AuthTokens {
        try await call("POST", "auth/signup", body: SignupRequest(email: email, password: password, invitation: invitation))
    }

    public func login(email: String, password: String, signInTicket: String? = nil) async throws -> AuthTokens {
        try await call("POST", "auth/login", body: LoginRequest(email: email, password: password, signInTicket: signInTicket))
    }

    /// Signs a new device in with a one-time enrolment code (`POST /auth/enroll`).
    public func enroll(code: String) async throws -> AuthTokens {
        try await call("POST", "auth/enroll", body: EnrollRequest(code: code))
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

    /// Makes an app password for a WebDAV client (`POST /devices/app-passwords`).
    public func makeAppPassword(name: String, accessToken: String) async throws -> AppPasswordCreated {
        try await makeAppPassword(AppPasswordRequest(name: name), accessToken: accessToken)
    }

    /// An app password reaching what `request` says (one vault, read-only, until a time).
    public func makeAppPassword(_ request: AppPasswordRequest, accessToken: String) async throws -> AppPasswordCreated {
        try await call("POST", "devices/app-passwords", body: request, headers: ["Authorization": "Bearer \(accessToken)"])
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

    /// `PUT /devices/{id}/folders`: which of the vault's folders this device holds, in words.
    public func setFolders(_ words: String, deviceID: UUID, accessToken: String) async throws {
        let _: Empty = try await call(
            "PUT", "devices/\(deviceID.uuidString.lowercased())/folders", body: DeviceFoldersRequest(folders: words), headers: ["Authorization": "Bearer \(accessToken)"])
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
}
