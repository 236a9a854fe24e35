public import Foundation
import SyncProtocol

extension SyncEngine {
    /// Links `root` to an account on `server`: logs in (or signs up), registers this device and keeps
    /// its tokens in `.vaultsync/credentials.json` (mode 0600; the password is not stored).
    ///
    /// A folder linked before (signed out, or linked again) signs back in as the same device of the
    /// same account: its sync state stays valid, so nothing is downloaded again.
    /// - Throws: ``SyncEngineError/linkedElsewhere(_:server:)`` or ``SyncEngineError/otherAccount(_:)``
    ///   when the folder syncs with another server or account, ``SyncEngineError/nestedVault(_:other:inside:)``
    ///   for a folder inside or around a linked one.
    /// - Parameters:
    ///   - vault: the vault to sync with (its name, `OWNER/NAME` for a shared one, or its id); nil
    ///     for the one the folder synced with before, or else `default`.
    ///   - createVault: create `vault` when the account has none of that name.
    public static func link(
        root: URL, server: URL, email: String, password: String, deviceName: String, createAccount: Bool = false,
        vault: String? = nil, createVault: Bool = false, transport: any HTTPTransport = AsyncHTTPTransport()
    ) async throws -> SyncEngine {
        try await link(
            root: root, server: server, credential: .password(email: email, password: password, createAccount: createAccount), deviceName: deviceName,
            vault: vault, createVault: createVault, transport: transport)
    }

    /// ``link(root:server:email:password:deviceName:createAccount:vault:createVault:transport:)``
    /// with any way of signing in: a password, or an ID token of a provider the server trusts.
    /// `joinCode`: an invitation code someone gave, whose vault the folder joins and links to.
    public static func link(
        root: URL, server: URL, credential: SignInCredential, deviceName: String,
        vault: String? = nil, createVault: Bool = false, joinCode: String? = nil, transport: any HTTPTransport = AsyncHTTPTransport()
    ) async throws -> SyncEngine {
        if let above = NestedVaults.linkedAbove(root) { throw SyncEngineError.nestedVault(root.path, other: above.path, inside: true) }
        if let below = NestedVaults.linkedBelow(root) { throw SyncEngineError.nestedVault(root.path, other: below.path, inside: false) }
        let stateFolder = root.standardizedFileURL.appendingPathComponent(VaultPath.stateFolderName)
        let previous = try LinkRecord.read(stateFolder: stateFolder)
        if let previous, !LinkRecord.sameServer(previous.server, server.absoluteString) {
            throw SyncEngineError.linkedElsewhere(root.path, server: previous.server)
        }
        let api = SyncAPI(baseURL: server, transport: transport)
        let tokens = try await credential.signIn(api, ticket: previous?.signInTicket)
        if let previous, let user = previous.userID, user != tokens.userID {
            try? await api.logout(refreshToken: tokens.refreshToken)
            throw SyncEngineError.otherAccount(root.path)
        }
        let vaultID: UUID?
        do {
            vaultID = try await chooseVault(vault, joining: joinCode, create: createVault, previous: previous, root: root, api: api, accessToken: tokens.accessToken)
        } catch {
            try? await api.logout(refreshToken: tokens.refreshToken)  // no session is left behind
            throw error
        }
        let name = previous?.deviceName ?? deviceName
        // The same device again when the server still knows it (not revoked), else a new one; the
        // session is bound to it either way.
        let deviceID = try await api.registerDevice(
            RegisterDeviceRequest(deviceName: name, platform: Self.platform, deviceID: previous?.deviceID), accessToken: tokens.accessToken).deviceID
        // Linked again while signed in: an encrypted vault's key stays (it goes with a logout).
        let credentials = CredentialStore(stateFolder: stateFolder)
        let kept = try? credentials.load().flatMap { $0.userID == tokens.userID ? $0 : nil }
        let sameVault = kept?.vaultID == vaultID
        var fresh = Credentials(
            server: server, userID: tokens.userID, deviceID: deviceID, deviceName: name,
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, vaultID: vaultID, vaultKey: sameVault ? kept?.vaultKey : nil)
        fresh.laterVaultKeys = sameVault ? kept?.laterVaultKeys : nil
        fresh.sharingKeys = kept?.sharingKeys  // the account's, whichever vault
        try credentials.save(fresh)
        // Linked again: the session it held before ends, rather than staying alive unused.
        if let kept, kept.refreshToken != fresh.refreshToken { try? await api.logout(refreshToken: kept.refreshToken) }
        let engine = try SyncEngine(root: root, transport: transport)
        try await engine.store.setMeta(.server, server.absoluteString)
        try await engine.store.setMeta(.userID, tokens.userID.uuidString)
        try await engine.store.setMeta(.deviceID, deviceID.uuidString)
        try await engine.store.setMeta(.deviceName, name)
        try await engine.store.setMeta(.vaultID, vaultID?.uuidString)
        switch credential {
        case .password(let email, _, _), .invitation(let email, _, _): try await engine.store.setMeta(.email, email)
        case .idToken, .enrollment: break
        }
        if let ticket = tokens.signInTicket { try await engine.store.setMeta(.signInTicket, ticket) }
        // Signed in again: a session refused earlier no longer describes the vault.
        if try await engine.store.meta(.lastStatus) == SyncStatus.unauthenticated.rawValue { try await engine.store.setMeta(.lastStatus, nil) }
        return engine
    }

    /// The id of the server vault a folder links to: the one `name` names (``VaultChoice``; created
    /// when asked; a shared vault whose invitation waits is joined), the one an invitation code
    /// joins, else the one it synced with before; nil for the account's `default` vault of a
    /// folder that never chose one (the server's default when no vault is named).
    /// - Throws: ``SyncEngineError/noSuchVault(_:known:)``, ``SyncEngineError/otherVault(_:vault:)``.
    private static func chooseVault(
        _ name: String?, joining code: String?, create: Bool, previous: LinkRecord?, root: URL, api: SyncAPI, accessToken: String
    ) async throws -> UUID? {
        guard name != nil || code != nil else { return previous?.vaultID }
        let vaults = try await api.vaults(accessToken: accessToken)
        let chosen = try await { () async throws -> VaultInfo in
            if let code { return try await api.redeemInvitation(code: code, accessToken: accessToken) }
            guard let name else { throw SyncEngineError.noSuchVault("", known: vaults.map(\.qualifiedName)) }
            if let found = VaultChoice.find(name, in: vaults) { return found }
            if let invitation = VaultChoice.invitation(name, in: try await api.invitations(accessToken: accessToken)) {
                return try await api.acceptInvitation(invitation.invitationID, accessToken: accessToken)
            }
            guard create, VaultInfo.isValidName(name) else { throw SyncEngineError.noSuchVault(name, known: vaults.map(\.qualifiedName)) }
            return try await api.createVault(named: name, accessToken: accessToken)
        }()
        if let previous, previous.userID != nil {
            // A folder keeps its vault: its sync state describes that vault's files.
            let before = previous.vaultID ?? vaults.first { $0.owner == nil && $0.name == "default" }?.vaultID
            if before != chosen.vaultID { throw SyncEngineError.otherVault(root.path, vault: vaults.first { $0.vaultID == before }?.qualifiedName ?? "default") }
        }
        return chosen.vaultID
    }

    /// Signs a linked, signed-out vault back in through a provider the server trusts (an ID token).
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked.
    public static func login(root: URL, provider: String, idToken: String, nonce: String? = nil, transport: any HTTPTransport = AsyncHTTPTransport()) async throws -> SyncEngine {
        let stateFolder = root.standardizedFileURL.appendingPathComponent(VaultPath.stateFolderName)
        guard let record = try LinkRecord.read(stateFolder: stateFolder), let server = URL(string: record.server) else {
            throw SyncEngineError.notLinked(root.path)
        }
        return try await link(
            root: root, server: server, credential: .idToken(provider: provider, token: idToken, nonce: nonce),
            deviceName: record.deviceName ?? DeviceName.byDefault(), transport: transport)
    }

    /// Signs a linked, signed-out vault back in (after `logout`, or when the server ended the
    /// session) with the server, account and device it was linked with.
    /// - Parameter email: the account's email; nil uses the one recorded at link time.
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked.
    public static func login(root: URL, email: String?, password: String, transport: any HTTPTransport = AsyncHTTPTransport()) async throws -> SyncEngine {
        let stateFolder = root.standardizedFileURL.appendingPathComponent(VaultPath.stateFolderName)
        guard let record = try LinkRecord.read(stateFolder: stateFolder), let server = URL(string: record.server) else {
            throw SyncEngineError.notLinked(root.path)
        }
        guard let email = email ?? record.email else { throw SyncEngineError.emailNeeded(root.path) }
        return try await link(root: root, server: server, email: email, password: password, deviceName: record.deviceName ?? DeviceName.byDefault(), transport: transport)
    }

    /// Ends this device's session: the server revokes its refresh tokens and the local copy is removed.
    /// The vault's files and sync state stay; ``login(root:email:password:transport:)`` resumes syncing.
    public func logout() async throws {
        let store = CredentialStore(stateFolder: stateFolder)
        let credentials = try store.load()
        // The local copy goes first: a `watch` syncing meanwhile then finds the device signed out,
        // rather than its tokens refused by the server a moment before they vanish here.
        try store.remove()
        if let credentials { try? await api.logout(refreshToken: credentials.refreshToken) }
    }
}

/// How a device signs in.
public enum SignInCredential: Sendable {
    /// Email and password (`createAccount`: sign up first).
    case password(email: String, password: String, createAccount: Bool = false)
    /// An ID token from a provider the server trusts (Sign in with Apple, OpenID Connect); the
    /// first one creates the account unless the server does not allow it.
    case idToken(provider: String, token: String, nonce: String? = nil)
    /// A one-time enrolment code the account's owner made in the web app ("Add a device").
    case enrollment(code: String)
    /// A new account made with an operator's invitation code (how a server that takes no
    /// sign-ups lets a person in), then signed in with its password.
    case invitation(email: String, password: String, code: String)

    /// Signs in, showing `ticket` (``AuthTokens/signInTicket``) with a password.
    func signIn(_ api: SyncAPI, ticket: String? = nil) async throws -> AuthTokens {
        switch self {
        case .password(let email, let password, let create):
            create ? try await api.signup(email: email, password: password) : try await api.login(email: email, password: password, signInTicket: ticket)
        case .idToken(let provider, let token, let nonce): try await api.login(provider: provider, idToken: token, nonce: nonce)
        case .enrollment(let code): try await api.enroll(code: code)
        case .invitation(let email, let password, let code): try await api.signup(email: email, password: password, invitation: code)
        }
    }
}

/// What `sync.db` remembers of a folder's link, readable without credentials.
struct LinkRecord: Equatable {
    var server: String
    var userID: UUID?
    var deviceID: UUID?
    var deviceName: String?
    var email: String?
    var vaultID: UUID?
    /// The ticket of this device's last password sign-in (``MetaKey/signInTicket``).
    var signInTicket: String?

    /// The record, or nil when the folder was never linked (no `sync.db`, or no server in it).
    static func read(stateFolder: URL) throws -> LinkRecord? {
        guard let store = try existingStore(stateFolder) else { return nil }
        return try read(store)
    }

    /// The folder's `sync.db`, or nil when there is none (it is not created just to look).
    static func existingStore(_ stateFolder: URL) throws -> StateStore? {
        guard FileManager.default.fileExists(atPath: stateFolder.appendingPathComponent("sync.db").path) else { return nil }
        return try StateStore(stateFolder: stateFolder)
    }

    /// Whether two server URLs name the same server (`http://host:8080` and `http://host:8080/` do).
    static func sameServer(_ a: String, _ b: String) -> Bool {
        func trimmed(_ text: String) -> Substring {
            var text = Substring(text)
            while text.hasSuffix("/") { text = text.dropLast() }
            return text
        }
        return trimmed(a).lowercased() == trimmed(b).lowercased()
    }

    /// The record in `store`, or nil when no server is recorded there.
    static func read(_ store: StateStore) throws -> LinkRecord? {
        try store.readMetaSync { meta in
            guard let server = meta[.server] else { return nil }
            return LinkRecord(
                server: server, userID: meta[.userID].flatMap(UUID.init(uuidString:)), deviceID: meta[.deviceID].flatMap(UUID.init(uuidString:)),
                deviceName: meta[.deviceName], email: meta[.email], vaultID: meta[.vaultID].flatMap(UUID.init(uuidString:)),
                signInTicket: meta[.signInTicket])
        }
    }
}
