public import Foundation

/// An encrypted vault's key as the server keeps it: wrapped under the passphrase and under the
/// recovery key (`docs/encryption.md`), which the server never sees. `GET /vault/key` answers it;
/// `PUT /vault/key` creates or replaces it.
public struct KeyEnvelope: Codable, Sendable, Equatable {
    /// The envelope format this protocol writes.
    public static let currentFormat = 1

    public var formatVersion: Int
    /// The vault key's id: 16 lowercase hex digits.
    public var keyID: String
    /// How the passphrase's key-encryption key is derived: `scrypt`.
    public var kdf: String
    public var scrypt: ScryptParameters
    /// The vault key wrapped under the passphrase's key: nonce, ciphertext and tag (60 bytes).
    public var passphraseWrapped: Data
    /// The vault key wrapped under the recovery key (60 bytes).
    public var recoveryWrapped: Data
    /// Set by the server: 1 when created, one more with every replacement.
    public var revision: Int?
    /// Set by the server.
    public var updatedAt: Date?
    /// Set by the server: the name of the device that wrote this revision.
    public var updatedByDevice: String?

    public init(keyID: String, scrypt: ScryptParameters, passphraseWrapped: Data, recoveryWrapped: Data) {
        self.formatVersion = Self.currentFormat
        self.keyID = keyID
        self.kdf = "scrypt"
        self.scrypt = scrypt
        self.passphraseWrapped = passphraseWrapped
        self.recoveryWrapped = recoveryWrapped
    }

    enum CodingKeys: String, CodingKey {
        case kdf, scrypt, revision
        case formatVersion = "format_version"
        case keyID = "key_id"
        case passphraseWrapped = "passphrase_wrapped"
        case recoveryWrapped = "recovery_wrapped"
        case updatedAt = "updated_at"
        case updatedByDevice = "updated_by_device"
    }
}

/// scrypt's parameters, stored with the wrapped key so that a later cost still opens it.
public struct ScryptParameters: Codable, Sendable, Equatable {
    /// 16 to 64 random bytes, fresh for every wrap.
    public var salt: Data
    /// log2 of the cost N (10 to 22).
    public var logN: Int
    /// Block size (1 to 32).
    public var r: Int
    /// Parallelism (1 to 16).
    public var p: Int

    public init(salt: Data, logN: Int, r: Int, p: Int) {
        self.salt = salt
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// The smallest block size a server takes for a new envelope.
    public static let minimumR = 8

    /// Whether a client may spend the derivation these ask for (a server cannot make it spend a day).
    public var isWithinLimits: Bool {
        (16...64).contains(salt.count) && (10...22).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
    }

    enum CodingKeys: String, CodingKey {
        case salt, r, p
        case logN = "log_n"
    }
}

/// `PUT /vault/key`: creates the envelope of an empty vault (no `expected_revision`), which makes it
/// an encrypted vault for good, or replaces it (a new passphrase) when `expected_revision` is the
/// current revision and the key id is the current one: of two devices replacing it at once, one wins
/// and the other gets `409 key_conflict`. Either way it carries the vault key's envelope proof,
/// which only a holder of the key can make: a replacement whose proof is not the one recorded at
/// creation is `403 key_proof_invalid`.
public struct PutKeyRequest: Codable, Sendable, Equatable {
    public var envelope: KeyEnvelope
    public var expectedRevision: Int?
    /// The vault key's envelope proof (32 bytes, base64): HKDF-SHA256 of the vault key under
    /// `vaultsync v1 envelope proof` (docs/encryption.md).
    public var proof: Data?

    public init(envelope: KeyEnvelope, expectedRevision: Int?, proof: Data?) {
        self.envelope = envelope
        self.expectedRevision = expectedRevision
        self.proof = proof
    }

    enum CodingKeys: String, CodingKey {
        case envelope, proof
        case expectedRevision = "expected_revision"
    }
}

/// `GET /vault/key/revisions`: the envelopes an encrypted vault had before its current one, newest
/// first, so that a replacement can be undone by a device that holds the key.
public struct KeyRevisions: Codable, Sendable, Equatable {
    public var revisions: [KeyEnvelope]

    public init(revisions: [KeyEnvelope]) {
        self.revisions = revisions
    }
}

/// `POST /vault/rekey`: renames every live path of an encrypted vault to its name under the key
/// generation `names_generation` (made by `POST /vaults/{id}/keys` beforehand), as one change: each
/// file's next version at `to` names the bytes it names at `path`, and `path` gets a tombstone. The
/// renames must name every live file at its current version, or nothing is renamed
/// (`409 rekey_outdated`). Owner and admins.
public struct RekeyRequest: Codable, Sendable, Equatable {
    public var namesGeneration: Int
    public var files: [RekeyFile]

    public init(namesGeneration: Int, files: [RekeyFile]) {
        self.namesGeneration = namesGeneration
        self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case files
        case namesGeneration = "names_generation"
    }
}

/// One rename of ``RekeyRequest``: a live path at the version the device read, its name under the
/// new generation, and that name's letter-case key. With `content_hash` and `size_bytes`, the new
/// name's version names those bytes instead (the file sealed again under the new generation,
/// uploaded beforehand through a push's reservation of `to`).
public struct RekeyFile: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var baseVersion: Int
    public var to: VaultPath
    public var pathKey: String
    public var contentHash: ContentHash?
    public var sizeBytes: Int64?

    public init(path: VaultPath, baseVersion: Int, to: VaultPath, pathKey: String, contentHash: ContentHash? = nil, sizeBytes: Int64? = nil) {
        self.path = path
        self.baseVersion = baseVersion
        self.to = to
        self.pathKey = pathKey
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
    }

    enum CodingKeys: String, CodingKey {
        case path, to
        case baseVersion = "base_version"
        case pathKey = "path_key"
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
    }
}

/// The answer to ``RekeyRequest``: the vault's name generation now, and how many files were renamed.
public struct RekeyResponse: Codable, Sendable, Equatable {
    public var namesGeneration: Int
    public var renamed: Int

    public init(namesGeneration: Int, renamed: Int) {
        self.namesGeneration = namesGeneration
        self.renamed = renamed
    }

    enum CodingKeys: String, CodingKey {
        case renamed
        case namesGeneration = "names_generation"
    }
}
