public import Foundation
public import SyncProtocol
public import VaultCrypto

/// What opens an encrypted vault's key on a device.
public enum VaultSecret: Sendable {
    case passphrase(String)
    /// The recovery key as `init --encrypt` printed it (case, spaces and dashes do not matter).
    case recoveryKey(String)
}

/// What linking does about encryption.
public enum VaultKeyChoice: Sendable {
    /// Nothing for a plain vault; for an encrypted one, the key is opened with what `secret`
    /// gives, asked only then.
    case unlock(secret: @Sendable () throws -> VaultSecret)
    /// Makes the vault an encrypted one under `passphrase` (the server refuses a vault that holds
    /// anything); on a vault already encrypted, opens its key with `passphrase` instead.
    case create(passphrase: String, scrypt: ScryptParameters = .standard())
}

/// End-to-end encrypted vaults on the device (`docs/encryption.md`): the key is made or opened
/// here, kept with the folder's credentials (0600, removed at logout), and never sent.
extension SyncEngine {
    /// Links `root` as ``link(root:server:credential:deviceName:vault:createVault:transport:)``
    /// does, then makes or opens the vault's key. A folder that was not linked before is left as
    /// it was when the key step fails (a wrong passphrase, a vault that is not empty): the device
    /// registered for it revoked (its session with it), and its `.vaultsync` removed.
    /// - Returns: the engine, and the recovery key of a vault this call made encrypted (to show
    ///   the user once: it is not stored anywhere).
    public static func link(
        root: URL, server: URL, credential: SignInCredential, deviceName: String, vault: String? = nil, createVault: Bool = false, joinCode: String? = nil,
        key choice: VaultKeyChoice, transport: any HTTPTransport = AsyncHTTPTransport()
    ) async throws -> (engine: SyncEngine, recoveryKey: String?) {
        let stateFolder = root.standardizedFileURL.appendingPathComponent(VaultPath.stateFolderName)
        let linkedBefore = FileManager.default.fileExists(atPath: stateFolder.path)
        let engine = try await link(
            root: root, server: server, credential: credential, deviceName: deviceName, vault: vault, createVault: createVault, joinCode: joinCode, transport: transport)
        do {
            let recoveryKey = try await engine.establishKey(choice)
            return (try SyncEngine(root: root, transport: transport), recoveryKey)
        } catch {
            if !linkedBefore {
                // The device was made for this link: it goes with it, not left in `devices`.
                if let device = try? CredentialStore(stateFolder: stateFolder).load()?.deviceID {
                    _ = try? await engine.revokeDevice(device)
                }
                try? await engine.logout()
                try? FileManager.default.removeItem(at: stateFolder)
            }
            throw error
        }
    }

    /// Opens the vault's key with what `secret` gives when the vault is encrypted and this folder
    /// does not hold its key (after `logout`, which removes it); nothing for a plain vault.
    public func unlock(secret: @escaping @Sendable () throws -> VaultSecret) async throws {
        _ = try await establishKey(.unlock(secret: secret))
    }

    /// Whether this folder holds an encrypted vault's key.
    public var isEncrypted: Bool { remote.cipher != nil }

    /// Replaces the passphrase that wraps the vault's key; no file is encrypted again. The server
    /// takes it only over the revision read here, so of two devices changing it at once one wins
    /// and the other is told (`409 key_conflict`).
    /// - Throws: ``SyncEngineError/notEncryptedHere(_:)`` for a plain vault.
    public func changePassphrase(to passphrase: String, scrypt: ScryptParameters = .standard()) async throws {
        guard let cipher = remote.cipher else { throw SyncEngineError.notEncryptedHere(root.path) }
        let current = try await session.run { [api] in try await api.key($0) }
        let replacement = PutKeyRequest(
            envelope: try current.rewrapped(cipher.keys.names, passphrase: passphrase, scrypt: scrypt), expectedRevision: current.revision, proof: cipher.keys.names.envelopeProof)
        _ = try await session.run { [api] in try await api.putKey(replacement, session: $0) }
        try await store.log(.keyChanged, path: "", detail: "passphrase changed (key revision \((current.revision ?? 0) + 1))", at: now())
    }

    /// The vault key's envelopes: the current one first, then the ones it replaced.
    /// - Throws: ``SyncEngineError/notEncryptedHere(_:)`` for a plain vault.
    public func keyEnvelopes() async throws -> [KeyEnvelope] {
        guard remote.cipher != nil else { throw SyncEngineError.notEncryptedHere(root.path) }
        let current = try await session.run { [api] in try await api.key($0) }
        return [current] + (try await session.run { [api] in try await api.keyRevisions($0) }).revisions
    }

    /// Makes a past envelope the current one again (as a new revision): undoes a passphrase change
    /// (the passphrase of that revision opens the vault again). Only a device that holds the key
    /// can (the server checks its proof).
    /// - Throws: ``SyncEngineError/notEncryptedHere(_:)``; ``SyncEngineError/noSuchKeyRevision(_:)``.
    public func restoreKeyEnvelope(revision: Int) async throws -> KeyEnvelope {
        guard let cipher = remote.cipher else { throw SyncEngineError.notEncryptedHere(root.path) }
        let envelopes = try await keyEnvelopes()
        guard let current = envelopes.first, let past = envelopes.dropFirst().first(where: { $0.revision == revision }) else {
            throw SyncEngineError.noSuchKeyRevision(revision)
        }
        var envelope = past
        (envelope.revision, envelope.updatedAt, envelope.updatedByDevice) = (nil, nil, nil)
        let request = PutKeyRequest(envelope: envelope, expectedRevision: current.revision, proof: cipher.keys.names.envelopeProof)
        let stored = try await session.run { [api] in try await api.putKey(request, session: $0) }
        try await store.log(.keyChanged, path: "", detail: "key envelope of revision \(revision) restored (key revision \(stored.revision ?? 0))", at: now())
        return stored
    }

    /// Makes or opens the vault's key and keeps it with the credentials; returns a new recovery key.
    private func establishKey(_ choice: VaultKeyChoice) async throws -> String? {
        do {
            return try await establishKeyUnmapped(choice)
        } catch let error as VaultCryptoError {
            throw SyncEngineError.keyNotOpened(root.path, reason: error.description)
        }
    }

    private func establishKeyUnmapped(_ choice: VaultKeyChoice) async throws -> String? {
        let envelope: KeyEnvelope?
        do {
            envelope = try await session.run { [api] in try await api.key($0) }
        } catch let error as SyncAPIError where error.code == .notFound {
            envelope = nil
        }
        switch (choice, envelope) {
        case (.unlock, nil):
            return nil
        case (.create(let passphrase, let scrypt), nil):
            let made = try KeyEnvelope.create(passphrase: passphrase, scrypt: scrypt)
            _ = try await session.run { [api] in
                try await api.putKey(PutKeyRequest(envelope: made.envelope, expectedRevision: nil, proof: made.key.envelopeProof), session: $0)
            }
            try await keep([made.key])
            return made.recoveryKey.text
        case (.create(let passphrase, _), let envelope?):
            try await keep(try await openGenerations(envelope, .passphrase(passphrase)))
            return nil
        case (.unlock(let secret), let envelope?):
            if let held = remote.cipher?.keys.names, held.id.description == envelope.keyID { return nil }
            try await keep(try await openGenerations(envelope, try secret()))
            return nil
        }
    }

    /// Every generation of the vault's key, opened with `secret`: the owner opens generation 1
    /// from the envelope, a member from the keys given to their account; later generations come
    /// through the account's sharing keys (which `secret` opens too, unless this device holds them).
    private func openGenerations(_ envelope: KeyEnvelope, _ secret: VaultSecret) async throws -> [VaultKey] {
        let vault = try await linkedVault()
        let list: VaultKeyList? = vault.owner == nil
            ? try? await session.run { [api] in try await api.keyList(of: vault.vaultID, accessToken: $0.accessToken) }  // an older server has none
            : try await session.run { [api] in try await api.keyList(of: vault.vaultID, accessToken: $0.accessToken) }
        var generations: [Int: VaultKey] = [:]
        if vault.owner == nil {
            generations[1] = try Self.unlock(envelope, secret)
            // The account's sharing keys, when the same secret opens them: this device then takes
            // the generations a removal makes without being asked again.
            if try await heldSharingKeys() == nil, let opened = try? await openSharingKeys(secret) {
                try await session.keepSharingKeys(opened.bytes)
            }
        }
        if let list, list.generation > generations.count {
            let sharing: SharingKeys
            if let held = try await heldSharingKeys() {
                sharing = held
            } else {
                sharing = try await openSharingKeys(secret)
                try await session.keepSharingKeys(sharing.bytes)
            }
            generations.merge(try await receivedGenerations(list, vaultID: vault.vaultID, sharing: sharing)) { own, _ in own }
        }
        let count = list?.generation ?? 1
        return try (1...count).map { generation in
            guard let key = generations[generation] else {
                throw SyncEngineError.sharingKeys(
                    "generation \(generation) of the vault's key was not given to this account: ask its owner or an admin to sync once (or to invite you again); nothing was synced")
            }
            return key
        }
    }

    private static func unlock(_ envelope: KeyEnvelope, _ secret: VaultSecret) throws -> VaultKey {
        switch secret {
        case .passphrase(let passphrase):
            return try envelope.unlock(passphrase: passphrase)
        case .recoveryKey(let text):
            guard let recoveryKey = RecoveryKey(text: text) else { throw VaultCryptoError.malformed("that is not a recovery key: it has 32 letters and digits, in groups of 4") }
            return try envelope.unlock(recoveryKey: recoveryKey)
        }
    }
}
