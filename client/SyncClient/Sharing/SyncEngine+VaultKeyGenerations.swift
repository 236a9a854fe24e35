import Foundation
import SyncProtocol
import VaultCrypto

/// The generations of a shared encrypted vault's key on this device
/// (`docs/decisions/0003-shared-encrypted-vaults.md`): given to people when they are invited,
/// taken when given to this account, renewed when a member leaves or is removed.
extension SyncEngine {
    /// Every generation this folder holds, wrapped to `person` for the vault `vaultID` and signed
    /// by this account: what an invitation to an encrypted vault carries.
    /// - Parameter expectedNumber: the safety number the inviter compared with the person, if any;
    ///   another one refuses (the server may have given another key).
    func grants(to person: PersonKeys, in vaultID: UUID, expectedNumber: String?) async throws -> [KeyGrant] {
        guard let cipher = remote.cipher else { return [] }
        let sharing = try await requireSharingKeys()
        let recipient = try SharingPublicKeys(agreement: person.agreementKey, signing: person.signingKey)
        if let expectedNumber, Self.digits(expectedNumber) != Self.digits(recipient.safetyNumber) {
            throw SyncEngineError.sharingKeys(
                "the safety number the server holds for \(person.email) is not the one you compared with them; nothing was sent. Compare again: they read theirs with 'vaultsync keys show' (a number shown here could be the server's own)")
        }
        let seen = try await seenNumbers()
        if expectedNumber == nil, let before = seen[person.userID], before != recipient.safetyNumber {
            throw SyncEngineError.sharingKeys(
                "\(person.email)'s safety number changed since this device last saw it; nothing was sent. Ask them for theirs ('vaultsync keys show'), compare, and invite with --safety-number")
        }
        try await see([(person.userID, recipient.safetyNumber)], confirming: expectedNumber != nil)
        return try cipher.keys.generations.enumerated().map { index, key in
            let wrapped = try MemberWrappedKey.wrap(key, to: recipient, by: sharing, for: .init(vaultID: vaultID, generation: index + 1))
            return KeyGrant(generation: index + 1, keyID: key.id.description, wrapped: wrapped.wrapped, signature: wrapped.signature)
        }
    }

    /// The generations given to this account, opened with `sharing` and checked (``GrantTrust``),
    /// generation 1 first.
    func receivedGenerations(_ list: VaultKeyList, vaultID: UUID, sharing: SharingKeys) async throws -> [Int: VaultKey] {
        let members = try await session.run { [api] in try await api.members(of: vaultID, accessToken: $0.accessToken) }.members
        let seen = try await seenNumbers()
        var keys: [Int: VaultKey] = [:]
        for received in list.received {
            let signer = try SharingPublicKeys(agreement: received.signerAgreementKey, signing: received.signerSigningKey)
            if let refusal = GrantTrust.check(signer: received.signerID, signerKeys: signer, members: members, pinned: seen) {
                throw SyncEngineError.sharingKeys(refusal.description)
            }
            guard let id = KeyID(hex: received.grant.keyID) else { throw SyncEngineError.sharingKeys("the server named a key id that is not one ('\(received.grant.keyID.prefix(20))')") }
            do {
                keys[received.grant.generation] = try MemberWrappedKey(wrapped: received.grant.wrapped, signature: received.grant.signature)
                    .unwrap(keyID: id, for: .init(vaultID: vaultID, generation: received.grant.generation), with: sharing, from: signer)
            } catch {
                throw SyncEngineError.sharingKeys("generation \(received.grant.generation) of the vault's key, given to this account, did not open: \(error.description)")
            }
            if let signerID = received.signerID { try await see([(signerID, signer.safetyNumber)]) }
        }
        return keys
    }

    /// Brings this folder's keys up to the vault's newest generation `generation` (a state page
    /// said so) before anything is sealed, and, when a member left since (`rotationDue`), makes the
    /// next one on the owner's or an admin's device.
    /// - Returns: notices for the sync's report, and whether this sync must send nothing (`hold`):
    ///   a member left and the key is not renewed, so what is sealed now would open with their keys.
    func keepUpWithKeys(generation: Int?, rotationDue: Bool, role: VaultRole?) async throws -> (notices: [String], hold: Bool) {
        guard let cipher = remote.cipher, let generation else { return ([], false) }
        if generation > cipher.keys.generations.count {
            try await takeNewGenerations()
        }
        guard rotationDue else { return ([], false) }
        guard role == .owner || role == .admin else { return ([], true) }
        guard try await heldSharingKeys() != nil else {
            return (["a member left this encrypted vault: open your sharing keys on this device ('vaultsync keys unlock') so that it renews the vault's key"], true)
        }
        do {
            let made = try await rotateVaultKey()
            return (["a member left this encrypted vault: its key was renewed (generation \(made)); new versions are sealed under it"], false)
        } catch let error as SyncAPIError where error.code == .keyConflict {
            // Another manager's device renewed it first: take that generation, and send as usual.
            try await takeNewGenerations()
            return ([], false)
        } catch {
            return (["a member left this encrypted vault, and renewing its key failed (\(error)); changes here wait until it is renewed"], true)
        }
    }

    /// Takes the generations given to this account that this folder does not hold yet.
    func takeNewGenerations() async throws {
        guard let cipher = remote.cipher else { return }
        let vaultID = try await linkedVault().vaultID
        let list = try await session.run { [api] in try await api.keyList(of: vaultID, accessToken: $0.accessToken) }
        var generations = cipher.keys.generations
        guard list.generation > generations.count else { return }
        let given = try await receivedGenerations(list, vaultID: vaultID, sharing: try await requireSharingKeys())
        for generation in generations.count + 1...list.generation {
            guard let key = given[generation] else {
                throw SyncEngineError.sharingKeys(
                    "the vault's key has generation \(generation), which was not given to this account (yet): ask the vault's owner or an admin to sync once; nothing was synced")
            }
            generations.append(key)
        }
        try await keep(generations)
        cipher.adopt(VaultKeyring(generations))
    }

    /// Makes the vault key's next generation, wrapped to everyone in the vault and each account
    /// invited to it, and seals under it from now on. Owner and admins. Refused, giving nobody
    /// anything, when a recipient's safety number is not the one this folder pinned, or was never
    /// pinned (``RecipientTrust``).
    /// - Returns: the new generation.
    @discardableResult
    public func rotateVaultKey() async throws -> Int {
        guard let cipher = remote.cipher else { throw SyncEngineError.notEncryptedHere(root.path) }
        let sharing = try await requireSharingKeys()
        let vaultID = try await linkedVault().vaultID
        let list = try await session.run { [api] in try await api.keyList(of: vaultID, accessToken: $0.accessToken) }
        if list.generation > cipher.keys.generations.count { try await takeNewGenerations() }
        let people = try await session.run { [api] in try await api.members(of: vaultID, accessToken: $0.accessToken) }
        var recipients: [RecipientTrust.Recipient] = []
        for member in people.members {
            guard let keys = member.sharingKeys else { throw SyncEngineError.sharingKeys("\(member.email) has no sharing keys, so the vault's new key cannot be given to them") }
            recipients.append(.init(userID: member.userID, email: member.email, keys: keys))
        }
        for invitation in people.invitations ?? [] {
            guard let email = invitation.email else { continue }
            let person = try await session.run { [api] in try await api.personKeys(email: email, accessToken: $0.accessToken) }
            recipients.append(.init(userID: person.userID, email: email, keys: try SharingPublicKeys(agreement: person.agreementKey, signing: person.signingKey)))
        }
        // The list is the server's: a key it added would receive this generation and every later one.
        let doubts = RecipientTrust.doubts(recipients, own: sharing.publicKeys, pinned: try await seenNumbers())
        guard doubts.isEmpty else { throw SyncEngineError.sharingKeys(RecipientTrust.refusal(doubts)) }
        let key = VaultKey.generate()
        let generation = cipher.keys.generations.count + 1
        let request = RotateKeyRequest(
            generation: generation, keyID: key.id.description,
            recipients: try recipients.map { recipient in
                let wrapped = try MemberWrappedKey.wrap(key, to: recipient.keys, by: sharing, for: .init(vaultID: vaultID, generation: generation))
                return RecipientKey(userID: recipient.userID, wrapped: wrapped.wrapped, signature: wrapped.signature)
            })
        _ = try await session.run { [api] in try await api.rotateKey(request, of: vaultID, accessToken: $0.accessToken) }
        let generations = cipher.keys.generations + [key]
        try await keep(generations)
        cipher.adopt(VaultKeyring(generations))
        try await store.log(.keyChanged, path: "", detail: "vault key renewed: generation \(request.generation), given to \(recipients.count) people", at: now())
        return request.generation
    }

    /// Keeps `generations` (generation 1 first) with the credentials.
    func keep(_ generations: [VaultKey]) async throws {
        try await session.keepVaultKeys(generations.map(\.bytes))
        try await store.setMeta(.vaultKeyID, generations[0].id.description)
    }

    static func digits(_ number: String) -> String {
        String(number.unicodeScalars.filter { CharacterSet.decimalDigits.contains($0) }.map(Character.init))
    }
}
