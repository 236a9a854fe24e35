public import Foundation
public import SyncProtocol
public import VaultCrypto

/// The account's sharing keys on this device (`docs/sharing.md`, "End-to-end encrypted shared
/// vaults"): made once, sealed under a passphrase and a recovery key on the server, kept unsealed
/// with this folder's credentials (0600, removed at logout) once opened.
extension SyncEngine {
    /// Makes the account's sharing keys and keeps them on this device.
    /// - Returns: the recovery key (to show once) and the account's safety number.
    /// - Throws: `409 key_conflict` when the account has them already (``unlockSharingKeys(_:)``).
    public func createSharingKeys(passphrase: String, scrypt: ScryptParameters = .standard()) async throws -> (recoveryKey: String, safetyNumber: String) {
        let keys = SharingKeys.generate()
        let recovery = RecoveryKey.generate()
        let sealed = try SealedSharingKeys.seal(keys, passphrase: passphrase, recoveryKey: recovery, scrypt: scrypt)
        let request = PutAccountKeysRequest(keys: AccountKeys(sealed), expectedRevision: nil)
        do {
            _ = try await session.run { [api] in try await api.putAccountKeys(request, accessToken: $0.accessToken) }
        } catch let error as SyncAPIError where error.code == .keyConflict {
            let number = try? await sharingKeysStatus()?.safetyNumber
            throw SyncEngineError.sharingKeys(
                "this account has sharing keys already\(number.map { " (safety number \($0))" } ?? ""): open them on this device with 'vaultsync keys unlock'; nothing was changed")
        }
        try await session.keepSharingKeys(keys.bytes)
        try await store.log(.keyChanged, path: "", detail: "sharing keys made (safety number \(keys.publicKeys.safetyNumber))", at: now())
        return (recovery.text, keys.publicKeys.safetyNumber)
    }

    /// Opens the account's sharing keys with `secret` and keeps them on this device; returns the
    /// safety number.
    public func unlockSharingKeys(_ secret: VaultSecret) async throws -> String {
        let keys = try await openSharingKeys(secret)
        try await session.keepSharingKeys(keys.bytes)
        return keys.publicKeys.safetyNumber
    }

    /// Seals the account's sharing keys under another passphrase (this device must hold them); the
    /// recovery key stays valid. Of two devices changing it at once, one wins (`409 key_conflict`).
    public func changeSharingKeysPassphrase(to passphrase: String, scrypt: ScryptParameters = .standard()) async throws {
        let keys = try await requireSharingKeys()
        let stored = try await session.run { [api] in try await api.accountKeys(accessToken: $0.accessToken) }
        guard let sealed = try? SealedSharingKeys(stored).resealed(keys, passphrase: passphrase, scrypt: scrypt) else {
            throw SyncEngineError.sharingKeys("the sharing keys this device holds are not the account's on the server (were they made anew?): run 'vaultsync keys unlock'")
        }
        let request = PutAccountKeysRequest(keys: AccountKeys(sealed), expectedRevision: stored.revision)
        _ = try await session.run { [api] in try await api.putAccountKeys(request, accessToken: $0.accessToken) }
        try await store.log(.keyChanged, path: "", detail: "sharing keys' passphrase changed", at: now())
    }

    /// The account's safety number, and whether this device holds the keys; nil before they are made.
    public func sharingKeysStatus() async throws -> (safetyNumber: String, onThisDevice: Bool)? {
        let stored: AccountKeys
        do {
            stored = try await session.run { [api] in try await api.accountKeys(accessToken: $0.accessToken) }
        } catch let error as SyncAPIError where error.code == .notFound {
            return nil
        }
        let sealed = try SealedSharingKeys(stored)
        let held = try await heldSharingKeys()
        return (sealed.publicKeys.safetyNumber, held?.publicKeys == sealed.publicKeys)
    }

    /// The sharing keys this device holds.
    func heldSharingKeys() async throws -> SharingKeys? {
        try await session.sharingKeys.map { try SharingKeys(bytes: $0) }
    }

    /// The sharing keys this device holds, or why it cannot act without them.
    func requireSharingKeys() async throws -> SharingKeys {
        if let held = try await heldSharingKeys() { return held }
        guard try await sharingKeysStatus() != nil else {
            throw SyncEngineError.sharingKeys("this account has no sharing keys yet: make them once with 'vaultsync keys create' (an encrypted vault's key is given to people through them)")
        }
        throw SyncEngineError.sharingKeys("this device does not hold the account's sharing keys: open them with 'vaultsync keys unlock' (your passphrase)")
    }

    /// The account's sealed keys opened with `secret`.
    func openSharingKeys(_ secret: VaultSecret) async throws -> SharingKeys {
        let stored: AccountKeys
        do {
            stored = try await session.run { [api] in try await api.accountKeys(accessToken: $0.accessToken) }
        } catch let error as SyncAPIError where error.code == .notFound {
            throw SyncEngineError.sharingKeys("this account has no sharing keys yet: make them once with 'vaultsync keys create'")
        }
        let sealed = try SealedSharingKeys(stored)
        do {
            switch secret {
            case .passphrase(let passphrase): return try sealed.open(passphrase: passphrase)
            case .recoveryKey(let text):
                guard let key = RecoveryKey(text: text) else { throw VaultCryptoError.malformed("that is not a recovery key: it has 32 letters and digits, in groups of 4") }
                return try sealed.open(recoveryKey: key)
            }
        } catch let error as VaultCryptoError {
            throw SyncEngineError.sharingKeys("the account's sharing keys did not open: \(error.description) (they open with the passphrase or recovery key given at 'vaultsync keys create')")
        }
    }

    // MARK: safety numbers seen

    /// The safety numbers this folder pinned, by person (at an invitation from here, a confirmation,
    /// or a key taken that they signed): a number that changes afterwards is shown as changed, and
    /// keys that person signs are not taken, nor a renewed key given to them, until it is confirmed.
    func seenNumbers() async throws -> [UUID: String] {
        guard let text = try await store.meta(.seenSafetyNumbers), let data = text.data(using: .utf8) else { return [:] }
        let decoded = (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
        return Dictionary(uniqueKeysWithValues: decoded.compactMap { key, value in UUID(uuidString: key).map { ($0, value) } })
    }

    /// Remembers the numbers of `people` not seen before (`confirming`: replaces theirs).
    func see(_ people: [(UUID, String)], confirming: Bool = false) async throws {
        var seen = try await seenNumbers()
        let before = seen
        for (id, number) in people where confirming || seen[id] == nil { seen[id] = number }
        guard seen != before else { return }  // nothing written when nobody is new
        let text = String(decoding: try JSONEncoder().encode(Dictionary(uniqueKeysWithValues: seen.map { ($0.key.uuidString, $0.value) })), as: UTF8.self)
        try await store.setMeta(.seenSafetyNumbers, text)
    }

    /// How each member's safety number stands on this folder (members without sharing keys are
    /// left out): the server's list pins nothing, and a key renewal gives a key only to `.pinned`
    /// and `.own` numbers.
    public func numberStanding(_ members: [VaultMember]) async throws -> [UUID: PinnedNumber] {
        let seen = try await seenNumbers()
        let own = try await heldSharingKeys()?.publicKeys.safetyNumber
        var standing: [UUID: PinnedNumber] = [:]
        for member in members {
            guard let number = member.safetyNumber else { continue }
            standing[member.userID] = number == own ? .own : seen[member.userID].map { $0 == number ? .pinned : .changed } ?? .notPinned
        }
        return standing
    }

    /// Takes a member's current safety number as the one compared with them (pins it).
    public func confirmNumber(of member: VaultMember) async throws -> String {
        guard let number = member.safetyNumber else { throw SyncEngineError.sharingKeys("\(member.email) has no sharing keys yet") }
        try await see([(member.userID, number)], confirming: true)
        return number
    }
}

extension AccountKeys {
    /// The wire form of sealed sharing keys.
    init(_ sealed: SealedSharingKeys) {
        self.init(
            agreementKey: sealed.publicKeys.agreement, signingKey: sealed.publicKeys.signing, scrypt: sealed.scrypt,
            passphraseSealed: sealed.passphraseSealed, recoverySealed: sealed.recoverySealed)
    }
}

extension SealedSharingKeys {
    /// Sealed sharing keys as the server keeps them.
    init(_ stored: AccountKeys) throws {
        guard stored.scrypt.isWithinLimits else { throw VaultCryptoError.malformed("the sharing keys' scrypt parameters are outside what this client spends") }
        self.init(
            publicKeys: try SharingPublicKeys(agreement: stored.agreementKey, signing: stored.signingKey), scrypt: stored.scrypt,
            passphraseSealed: stored.passphraseSealed, recoverySealed: stored.recoverySealed)
    }
}

/// How a member's safety number stands on a folder (``SyncEngine/numberStanding(_:)``).
public enum PinnedNumber: String, Sendable {
    /// The number this folder pinned.
    case pinned
    /// Not the number this folder pinned.
    case changed
    /// This folder never pinned one for them.
    case notPinned = "not_pinned"
    /// The number of this account's own keys, as this device holds them.
    case own
}
