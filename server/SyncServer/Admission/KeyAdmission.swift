import Crypto
import Foundation
import SyncProtocol

/// Whether `PUT /vault/key` may create or replace the vault's key envelope: a pure decision over
/// what the transaction read, carried out by ``VaultService/putKey(_:_:)``.
///
/// Only a holder of the vault key may write its envelope: every request carries the key's
/// envelope proof (``KeyEnvelope`` docs), the server keeps its SHA-256 from the creation on, and a
/// replacement whose proof does not match is refused, so that a stolen or merely other session of
/// the account cannot lock every device out by writing a broken envelope. An envelope made by an
/// earlier version has no proof on record: its first replacement records the one it carries.
enum KeyAdmission {
    /// The stored envelope, as the rule needs it.
    struct Current: Equatable {
        let keyID: String
        let revision: Int
        /// SHA-256 (hex) of the key's envelope proof; nil for an envelope stored before proofs.
        let proofHash: String?
    }

    enum Decision: Equatable {
        /// Store the envelope as revision 1, with this proof hash.
        case create(proofHash: String)
        /// Keep the current envelope among the past revisions and store this one as `revision`.
        case replace(revision: Int, proofHash: String)
    }

    /// Bytes of an envelope proof (HKDF-SHA256 output).
    static let proofBytes = 32

    /// - Parameters:
    ///   - current: the vault's envelope now; nil for a plain vault.
    ///   - holdsAnything: whether the vault holds files, deletions, open pushes or conflict records.
    ///   - minimumLogN: the smallest scrypt cost this server takes for a new envelope.
    ///   - role: the writer's role: only the vault's owner writes its envelope (members of a shared
    ///     vault get theirs wrapped to them, issue 34).
    ///   - shared: whether the vault has members or open invitations: it does not become encrypted,
    ///     (its members would get no key: a vault is encrypted before it is shared).
    static func decide(
        _ request: PutKeyRequest, current: Current?, holdsAnything: Bool, shared: Bool = false, minimumLogN: Int, vaultName: String, role: VaultRole
    ) throws(ServiceError) -> Decision {
        guard role == .owner else { throw .ownerOnly("only the owner of '\(vaultName)' sets or changes its encryption key") }
        try check(request.envelope, minimumLogN: minimumLogN)
        guard let proof = request.proof else {
            throw .invalidRequest("proof is required: the vault key's envelope proof (docs/encryption.md), which only a holder of the key can make")
        }
        guard proof.count == proofBytes else { throw .invalidRequest("proof must be \(proofBytes) bytes") }
        let proofHash = Self.hash(proof)
        switch (current, request.expectedRevision) {
        case (nil, nil):
            guard !shared else {
                throw .invalidRequest(
                    "vault '\(vaultName)' is shared (it has members or open invitations), and its members would get no key: encrypt a new vault, then share it (docs/sharing.md)")
            }
            guard !holdsAnything else {
                throw .vaultNotEmpty(
                    "vault '\(vaultName)' is not empty (it has files, deletions, open pushes or conflict records): only an empty vault becomes an encrypted one; create a new vault for it")
            }
            return .create(proofHash: proofHash)
        case (nil, let expected?):
            throw .keyConflict("vault '\(vaultName)' has no key to replace (expected revision \(expected)): create it without expected_revision")
        case (let current?, nil):
            throw .keyConflict("vault '\(vaultName)' is encrypted already (key \(current.keyID), revision \(current.revision)): replace its envelope with expected_revision")
        case (let current?, let expected?):
            if let stored = current.proofHash, stored != proofHash {
                throw .keyProofInvalid("the proof is not this vault's key's: only a device that holds the key may replace its envelope; nothing was changed")
            }
            guard expected == current.revision else {
                throw .keyConflict("the key envelope is at revision \(current.revision), not \(expected): another device changed it; read it again")
            }
            guard request.envelope.keyID == current.keyID else {
                throw .keyConflict("the envelope holds key \(request.envelope.keyID); this vault's key is \(current.keyID) and cannot be replaced")
            }
            return .replace(revision: current.revision + 1, proofHash: proofHash)
        }
    }

    /// The shape rules of an envelope, and the smallest passphrase cost taken; the server cannot
    /// check more (it cannot unwrap anything).
    static func check(_ envelope: KeyEnvelope, minimumLogN: Int) throws(ServiceError) {
        guard envelope.formatVersion == KeyEnvelope.currentFormat else {
            throw .invalidRequest("envelope format \(envelope.formatVersion) is not supported; this server keeps format \(KeyEnvelope.currentFormat)")
        }
        guard envelope.kdf == "scrypt" else { throw .invalidRequest("kdf '\(envelope.kdf.prefix(32))' is not supported; use scrypt") }
        guard envelope.scrypt.isWithinLimits else {
            throw .invalidRequest("scrypt parameters out of range: salt of 16 to 64 bytes, log_n 10 to 22, r 1 to 32, p 1 to 16")
        }
        guard envelope.scrypt.logN >= minimumLogN, envelope.scrypt.r >= ScryptParameters.minimumR else {
            throw .invalidRequest(
                "scrypt parameters too weak for a passphrase: this server takes log_n \(minimumLogN) or more and r \(ScryptParameters.minimumR) or more (a guess must stay expensive)")
        }
        guard envelope.keyID.utf8.count == 16, envelope.keyID.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .invalidRequest("key_id must be 16 lowercase hex digits")
        }
        guard envelope.passphraseWrapped.count == 60, envelope.recoveryWrapped.count == 60 else {
            throw .invalidRequest("a wrapped key has 60 bytes (nonce, ciphertext, tag)")
        }
    }

    /// SHA-256 of a proof, in hex: what the server keeps.
    static func hash(_ proof: Data) -> String {
        SHA256.hash(data: proof).map { String(format: "%02x", $0) }.joined()
    }
}
