import Foundation
import Postgres
import SyncProtocol

/// The keys of end-to-end encrypted shared vaults (`docs/decisions/0003-shared-encrypted-vaults.md`):
/// each account's sharing keys, and each generation of a vault's key wrapped to each person. The
/// server keeps and hands out what devices made; it opens none of it.
extension MemberService {
    /// The caller's sharing keys (sealed).
    /// - Throws: ``ServiceError/notFound(_:)`` before the account made them.
    func accountKeys(userID: UUID) async throws -> AccountKeys {
        guard let keys = try await db.withConnection({ try SharingKeyQueries.account($0, userID: userID) }) else {
            throw ServiceError.notFound("this account has no sharing keys yet: a device makes them when it first shares an encrypted vault ('vaultsync keys create')")
        }
        return keys
    }

    /// Makes or replaces the caller's sharing keys.
    /// - Throws: ``ServiceError/keyConflict(_:)`` when they exist and `expected_revision` is not
    ///   their revision (or is missing); ``ServiceError/invalidRequest(_:)`` for keys of the wrong shape.
    func putAccountKeys(userID: UUID, _ request: PutAccountKeysRequest) async throws -> AccountKeys {
        let keys = request.keys
        guard keys.agreementKey.count == 32, keys.signingKey.count == 32, keys.passphraseSealed.count == 92, keys.recoverySealed.count == 92 else {
            throw ServiceError.invalidRequest("sharing keys are two public keys of 32 bytes and two sealed private halves of 92 bytes (docs/encryption.md)")
        }
        guard keys.scrypt.isWithinLimits, keys.scrypt.logN >= minimumScryptLogN, keys.scrypt.r >= ScryptParameters.minimumR else {
            throw ServiceError.invalidRequest("the sharing keys' scrypt parameters are weaker than this server takes (log_n ≥ \(minimumScryptLogN), r ≥ \(ScryptParameters.minimumR))")
        }
        let now = now()
        return try await db.transaction { tx in
            let revision = (request.expectedRevision ?? 0) + 1
            guard try SharingKeyQueries.store(tx, userID: userID, keys: keys, revision: revision, now: now), let stored = try SharingKeyQueries.account(tx, userID: userID) else {
                let current = try SharingKeyQueries.account(tx, userID: userID)?.revision
                throw ServiceError.keyConflict(
                    current.map { "this account's sharing keys are at revision \($0), not \(request.expectedRevision.map(String.init) ?? "none"): read them again" }
                        ?? "this account has no sharing keys to replace: make them without expected_revision")
            }
            return stored
        }
    }

    /// The public sharing keys of the account with `email`, to wrap a vault key to.
    /// - Throws: ``ServiceError/notFound(_:)`` when no account has that email or it has no keys yet.
    func personKeys(email: String) async throws -> PersonKeys {
        guard let keys = try await db.withConnection({ try SharingKeyQueries.person($0, email: email.trimmingCharacters(in: .whitespaces)) }) else {
            throw ServiceError.notFound(
                "no account on this server with the email '\(email.prefix(120))' has sharing keys: they sign up, then make them once ('vaultsync keys create')")
        }
        return keys
    }

    /// The generations of the vault's key, and those given to the caller.
    func keyring(userID: UUID, vaultID: UUID) async throws -> VaultKeyList {
        try await db.withConnection { db in
            let vault = try Self.reach(db, userID: userID, vaultID: vaultID)
            let keyIDs = try SharingKeyQueries.keyIDs(db, vaultID: vault.id)
            guard !keyIDs.isEmpty else { throw ServiceError.notFound("'\(vault.name)' is not end-to-end encrypted: it has no keys") }
            return VaultKeyList(
                generation: keyIDs.count, keyIDs: keyIDs, received: try SharingKeyQueries.received(db, vaultID: vault.id, userID: userID, keyIDs: keyIDs),
                rotationDue: try SharingKeyQueries.rotationDue(db, vaultID: vault.id))
        }
    }

    /// Makes the vault key's next generation, wrapped to everyone in the vault and each account
    /// invited to it.
    func rotate(userID: UUID, vaultID: UUID, _ request: RotateKeyRequest) async throws -> VaultKeyList {
        let now = now()
        try await db.transaction { tx in
            let vault = try Self.reach(tx, userID: userID, vaultID: vaultID)
            _ = try FileStateQueries.lockVault(tx, vaultID: vault.id)  // one rotation at a time, and no member joins meanwhile
            let keyIDs = vault.encrypted ? try SharingKeyQueries.keyIDs(tx, vaultID: vault.id) : []
            let people = try VaultMemberQueries.members(tx, vaultID: vault.id).map(\.userID) + VaultInvitationQueries.invitees(tx, vaultID: vault.id, now: now)
            let recipients = request.recipients.map(\.userID)
            let action = MemberAdmission.Action.rotate(
                key: .init(generation: request.generation, keyID: request.keyID), recipients: Set(recipients), people: Set(people))
            if let refusal = MemberAdmission.decide(action, actor: vault.role, keyIDs: keyIDs) ?? (recipients.count == Set(recipients).count ? nil : .recipientsDiffer) {
                throw refusal.serviceError(vaultName: vault.name)
            }
            try SharingKeyQueries.addGeneration(tx, vaultID: vault.id, generation: request.generation, keyID: request.keyID, madeBy: userID, now: now)
            for recipient in request.recipients {
                try Self.give(
                    tx, [KeyGrant(generation: request.generation, keyID: request.keyID, wrapped: recipient.wrapped, signature: recipient.signature)],
                    to: recipient.userID, in: vault, by: userID, now: now)
            }
        }
        return try await keyring(userID: userID, vaultID: vaultID)
    }

    /// Records `grants` to `recipient`, signed by `signer`, whose sharing keys are kept with them.
    static func give(_ db: PostgresConnection, _ grants: [KeyGrant], to recipient: UUID, in vault: AccountQueries.Reachable, by signer: UUID, now: Date) throws {
        let keys = try SharingKeyQueries.publicKeys(db, userIDs: [signer, recipient])
        guard let signerKeys = keys[signer] else {
            throw ServiceError.invalidRequest("you have no sharing keys on this server: make them before you give '\(vault.name)'s key to anyone ('vaultsync keys create')")
        }
        guard keys[recipient] != nil else {
            throw ServiceError.invalidRequest("the account you give '\(vault.name)'s key to has no sharing keys: they make them once ('vaultsync keys create')")
        }
        guard grants.allSatisfy({ $0.wrapped.count <= 256 && $0.signature.count == 64 }) else {
            throw ServiceError.invalidRequest("a wrapped vault key has at most 256 bytes and its signature 64")
        }
        try SharingKeyQueries.give(
            db, vaultID: vault.id, recipient: recipient, grants: grants.map { ($0.generation, $0.wrapped, $0.signature) }, signer: signer, signerKeys: signerKeys, now: now)
    }
}
