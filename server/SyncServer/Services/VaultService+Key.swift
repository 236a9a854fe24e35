import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// The envelope of an encrypted vault.
    /// - Throws: ``ServiceError/notFound(_:)`` for a plain vault.
    func key(_ scope: VaultScope) async throws -> KeyEnvelope {
        guard let stored = try await db.withConnection({ try VaultKeyQueries.envelope($0, vaultID: scope.vaultID) }) else {
            throw ServiceError.notFound("vault '\(scope.vaultName)' is not encrypted: it has no key")
        }
        return stored.envelope
    }

    /// Creates the envelope of an empty vault (making it encrypted for good), or replaces it when
    /// the request names the current revision and key id. Returns the stored envelope and whether
    /// it was created. Under the vault lock, so a confirm cannot slip a plain file in between the
    /// emptiness check and the creation.
    func putKey(_ scope: VaultScope, _ request: PutKeyRequest) async throws -> (envelope: KeyEnvelope, created: Bool) {
        try Self.check(request.envelope)
        let now = now()
        let created = try await db.transaction { tx in
            _ = try FileStateQueries.lockVault(tx, vaultID: scope.vaultID)
            let current = try VaultKeyQueries.envelope(tx, vaultID: scope.vaultID)
            switch (current, request.expectedRevision) {
            case (nil, nil):
                guard !(try VaultKeyQueries.holdsAnything(tx, vaultID: scope.vaultID)) else {
                    throw ServiceError.vaultNotEmpty(
                        "vault '\(scope.vaultName)' is not empty (it has files, deletions, open pushes or conflict records): only an empty vault becomes an encrypted one; create a new vault for it")
                }
                try VaultKeyQueries.store(tx, vaultID: scope.vaultID, envelope: request.envelope, revision: 1, deviceID: scope.deviceID, now: now)
                return true
            case (nil, let expected?):
                throw ServiceError.keyConflict("vault '\(scope.vaultName)' has no key to replace (expected revision \(expected)): create it without expected_revision")
            case (let current?, nil):
                throw ServiceError.keyConflict("vault '\(scope.vaultName)' is encrypted already (key \(current.keyID), revision \(current.revision)): replace its envelope with expected_revision")
            case (let current?, let expected?):
                guard expected == current.revision else {
                    throw ServiceError.keyConflict("the key envelope is at revision \(current.revision), not \(expected): another device changed it; read it again")
                }
                guard request.envelope.keyID == current.keyID else {
                    throw ServiceError.keyConflict("the envelope holds key \(request.envelope.keyID); this vault's key is \(current.keyID) and cannot be replaced")
                }
                try VaultKeyQueries.store(tx, vaultID: scope.vaultID, envelope: request.envelope, revision: current.revision + 1, deviceID: scope.deviceID, now: now)
                return false
            }
        }
        return (try await key(scope), created)
    }

    /// The shape rules of an envelope; the server cannot check more (it cannot unwrap anything).
    static func check(_ envelope: KeyEnvelope) throws {
        guard envelope.formatVersion == KeyEnvelope.currentFormat else {
            throw ServiceError.invalidRequest("envelope format \(envelope.formatVersion) is not supported; this server keeps format \(KeyEnvelope.currentFormat)")
        }
        guard envelope.kdf == "scrypt" else { throw ServiceError.invalidRequest("kdf '\(envelope.kdf.prefix(32))' is not supported; use scrypt") }
        guard envelope.scrypt.isWithinLimits else {
            throw ServiceError.invalidRequest("scrypt parameters out of range: salt of 16 to 64 bytes, log_n 10 to 22, r 1 to 32, p 1 to 16")
        }
        guard envelope.keyID.utf8.count == 16, envelope.keyID.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw ServiceError.invalidRequest("key_id must be 16 lowercase hex digits")
        }
        guard envelope.passphraseWrapped.count == 60, envelope.recoveryWrapped.count == 60 else {
            throw ServiceError.invalidRequest("a wrapped key has 60 bytes (nonce, ciphertext, tag)")
        }
    }
}
