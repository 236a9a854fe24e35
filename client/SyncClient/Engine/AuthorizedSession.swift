import Foundation
import SyncProtocol

/// The device's session: hands out the current tokens and refreshes them once when the server says
/// the access token expired, saving the rotated pair.
actor AuthorizedSession {
    private var credentials: Credentials
    private let store: CredentialStore
    let api: SyncAPI

    init(credentials: Credentials, store: CredentialStore, api: SyncAPI) {
        self.credentials = credentials
        self.store = store
        self.api = api
    }

    var vaultSession: VaultSession {
        VaultSession(
            accessToken: credentials.accessToken, deviceID: credentials.deviceID, vault: credentials.vaultID?.uuidString.lowercased(),
            namesGeneration: credentials.namesGeneration)
    }
    var deviceName: String { credentials.deviceName }

    /// The session, once more checking that the device is still signed in: a long-lived engine
    /// (`vaultsync watch`) must stop using tokens that `vaultsync logout` removed meanwhile.
    /// - Throws: ``SyncEngineError/signedOut(_:)``.
    func signedInSession() throws -> VaultSession {
        guard FileManager.default.fileExists(atPath: store.file.path) else {
            throw SyncEngineError.signedOut(store.file.deletingLastPathComponent().deletingLastPathComponent().path)
        }
        return vaultSession
    }

    /// Runs `call`; on `401 unauthorized` refreshes the tokens and runs it once more.
    /// - Throws: ``SyncEngineError/signedOut(_:)`` when the device was signed out meanwhile.
    func run<T: Sendable>(_ call: @Sendable (VaultSession) async throws -> T) async throws -> T {
        _ = try signedInSession()
        do {
            return try await call(vaultSession)
        } catch let error as SyncAPIError where error.code == .unauthorized {
            try await refresh()
            return try await call(vaultSession)
        }
    }

    /// Keeps an encrypted vault's key with the credentials.
    func keepVaultKey(_ key: Data) throws {
        credentials.vaultKey = key
        try store.save(credentials)
    }

    /// Keeps an encrypted vault's key generations (generation 1 first) with the credentials.
    func keepVaultKeys(_ keys: [Data]) throws {
        credentials.vaultKey = keys.first
        credentials.laterVaultKeys = keys.count > 1 ? Array(keys.dropFirst()) : nil
        try store.save(credentials)
    }

    /// Keeps the name generation the vault's paths are under with the credentials: sent from now on.
    func keepNamesGeneration(_ generation: Int) throws {
        credentials.namesGeneration = generation
        try store.save(credentials)
    }

    /// Keeps the account's sharing keys' private half with the credentials.
    func keepSharingKeys(_ keys: Data) throws {
        credentials.sharingKeys = keys
        try store.save(credentials)
    }

    /// The account's sharing keys' private half, when this device holds them.
    var sharingKeys: Data? { credentials.sharingKeys }

    /// Records the device's new name (it was renamed on the server).
    func renamed(_ name: String) throws {
        credentials.deviceName = name
        try store.save(credentials)
    }

    /// The refresh under way, which callers at the same time share (the watcher's feed and its
    /// sync both find the access token expired): two exchanges of one refresh token rotate it
    /// twice, the server revokes the first successor, and keeping the answer that came last could
    /// keep the revoked one and sign the device out.
    private var refreshing: Task<Void, any Error>?

    /// Exchanges the refresh token for a new pair and saves it (the access token expired).
    func refresh() async throws {
        if let refreshing { return try await refreshing.value }
        _ = try signedInSession()  // never bring back credentials a logout removed
        let running = Task { try await exchange() }
        refreshing = running
        defer { refreshing = nil }
        try await running.value
    }

    /// Takes up the pair another process on this folder saved since (`vaultsync sync` beside
    /// `vaultsync watch` rotated the token this one holds: exchanging it again would revoke
    /// theirs); otherwise exchanges the refresh token and saves the new pair.
    private func exchange() async throws {
        if let stored = try store.load(), stored.refreshToken != credentials.refreshToken {
            credentials.accessToken = stored.accessToken
            credentials.refreshToken = stored.refreshToken
            return
        }
        let tokens = try await api.refresh(refreshToken: credentials.refreshToken)
        credentials.accessToken = tokens.accessToken
        credentials.refreshToken = tokens.refreshToken
        try store.save(credentials)
    }
}
