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

    /// The envelopes the vault had before its current one, newest first.
    /// - Throws: ``ServiceError/notFound(_:)`` for a plain vault.
    func keyRevisions(_ scope: VaultScope) async throws -> KeyRevisions {
        _ = try await key(scope)
        return KeyRevisions(revisions: try await db.withConnection { try VaultKeyQueries.revisions($0, vaultID: scope.vaultID) })
    }

    /// Creates the envelope of an empty vault (making it encrypted for good), or replaces it when
    /// the request names the current revision and key id and proves the key (``KeyAdmission``).
    /// Returns the stored envelope and whether it was created. Under the vault lock, so a confirm
    /// cannot slip a plain file in between the emptiness check and the creation.
    func putKey(_ scope: VaultScope, _ request: PutKeyRequest) async throws -> (envelope: KeyEnvelope, created: Bool) {
        let now = now()
        let created = try await db.transaction { tx in
            _ = try FileStateQueries.lockVault(tx, vaultID: scope.vaultID)
            let current = try VaultKeyQueries.envelope(tx, vaultID: scope.vaultID)
            let decision = try KeyAdmission.decide(
                request, current: current.map { KeyAdmission.Current(keyID: $0.keyID, revision: $0.revision, proofHash: $0.proofHash) },
                holdsAnything: current == nil && request.expectedRevision == nil ? try VaultKeyQueries.holdsAnything(tx, vaultID: scope.vaultID) : false,
                shared: current == nil ? try VaultKeyQueries.isShared(tx, vaultID: scope.vaultID) : false,
                minimumLogN: limits.minimumScryptLogN, vaultName: scope.vaultName, role: scope.role)
            switch decision {
            case .create(let proofHash):
                try VaultKeyQueries.store(tx, vaultID: scope.vaultID, envelope: request.envelope, revision: 1, proofHash: proofHash, deviceID: scope.deviceID, now: now)
                return true
            case .replace(let revision, let proofHash):
                try VaultKeyQueries.store(tx, vaultID: scope.vaultID, envelope: request.envelope, revision: revision, proofHash: proofHash, deviceID: scope.deviceID, now: now)
                return false
            }
        }
        return (try await key(scope), created)
    }
}
