public import Foundation

/// An account's sharing keys as the server keeps them (`GET`/`PUT /account/keys`, issue 34): the
/// public X25519 and Ed25519 keys, and the private half sealed under the account's passphrase and
/// under its recovery key, which the server cannot open (`docs/encryption.md`).
public struct AccountKeys: Codable, Sendable, Equatable {
    public var agreementKey: Data
    public var signingKey: Data
    public var scrypt: ScryptParameters
    /// nonce, AES-256-GCM ciphertext of the 64 private bytes, tag (92 bytes).
    public var passphraseSealed: Data
    public var recoverySealed: Data
    /// Set by the server: 1 when made, one more with every replacement.
    public var revision: Int?
    public var updatedAt: Date?

    public init(agreementKey: Data, signingKey: Data, scrypt: ScryptParameters, passphraseSealed: Data, recoverySealed: Data) {
        self.agreementKey = agreementKey
        self.signingKey = signingKey
        self.scrypt = scrypt
        self.passphraseSealed = passphraseSealed
        self.recoverySealed = recoverySealed
    }

    enum CodingKeys: String, CodingKey {
        case scrypt, revision
        case agreementKey = "agreement_key"
        case signingKey = "signing_key"
        case passphraseSealed = "passphrase_sealed"
        case recoverySealed = "recovery_sealed"
        case updatedAt = "updated_at"
    }
}

/// `PUT /account/keys`: makes the account's sharing keys (no `expected_revision`) or replaces
/// them (the revision read before; a passphrase changed, or keys made anew when both secrets were
/// lost, which the people who share vaults with the account are shown as a changed key).
public struct PutAccountKeysRequest: Codable, Sendable, Equatable {
    public var keys: AccountKeys
    public var expectedRevision: Int?

    public init(keys: AccountKeys, expectedRevision: Int?) {
        self.keys = keys
        self.expectedRevision = expectedRevision
    }

    enum CodingKeys: String, CodingKey {
        case keys
        case expectedRevision = "expected_revision"
    }
}

/// Another account's public sharing keys (`GET /sharing-keys?email=`), to wrap a vault key to
/// before inviting them.
public struct PersonKeys: Codable, Sendable, Equatable {
    public var userID: UUID
    public var email: String
    public var agreementKey: Data
    public var signingKey: Data

    public init(userID: UUID, email: String, agreementKey: Data, signingKey: Data) {
        self.userID = userID
        self.email = email
        self.agreementKey = agreementKey
        self.signingKey = signingKey
    }

    enum CodingKeys: String, CodingKey {
        case email
        case userID = "user_id"
        case agreementKey = "agreement_key"
        case signingKey = "signing_key"
    }
}

/// One generation of a vault's key wrapped to the person it is given to (format 1 of
/// `docs/encryption.md`), with the signature of the account that wrapped it.
public struct KeyGrant: Codable, Sendable, Equatable {
    public var generation: Int
    /// The wrapped key's id: 16 lowercase hex digits.
    public var keyID: String
    public var wrapped: Data
    public var signature: Data

    public init(generation: Int, keyID: String, wrapped: Data, signature: Data) {
        self.generation = generation
        self.keyID = keyID
        self.wrapped = wrapped
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case generation, wrapped, signature
        case keyID = "key_id"
    }
}

/// A ``KeyGrant`` given to the caller, with who signed it (their public keys as they were when
/// they signed).
public struct ReceivedKey: Codable, Sendable, Equatable {
    public var grant: KeyGrant
    /// Nil when the signer's account is gone.
    public var signerID: UUID?
    public var signerEmail: String?
    public var signerAgreementKey: Data
    public var signerSigningKey: Data

    public init(grant: KeyGrant, signerID: UUID?, signerEmail: String?, signerAgreementKey: Data, signerSigningKey: Data) {
        self.grant = grant
        self.signerID = signerID
        self.signerEmail = signerEmail
        self.signerAgreementKey = signerAgreementKey
        self.signerSigningKey = signerSigningKey
    }

    enum CodingKeys: String, CodingKey {
        case grant
        case signerID = "signer_id"
        case signerEmail = "signer_email"
        case signerAgreementKey = "signer_agreement_key"
        case signerSigningKey = "signer_signing_key"
    }
}

/// `GET /vaults/{id}/keys`: the generations of an encrypted vault's key, and those given to the
/// caller.
public struct VaultKeyList: Codable, Sendable, Equatable {
    /// The newest generation: what new files are sealed under.
    public var generation: Int
    /// Each generation's key id, generation 1 first.
    public var keyIDs: [String]
    public var received: [ReceivedKey]
    /// A member left or was removed since the newest generation was made: the owner's or an
    /// admin's device makes the next one (`POST /vaults/{id}/keys`).
    public var rotationDue: Bool

    public init(generation: Int, keyIDs: [String], received: [ReceivedKey], rotationDue: Bool) {
        self.generation = generation
        self.keyIDs = keyIDs
        self.received = received
        self.rotationDue = rotationDue
    }

    enum CodingKeys: String, CodingKey {
        case generation, received
        case keyIDs = "key_ids"
        case rotationDue = "rotation_due"
    }
}

/// A generation wrapped to one person, in a ``RotateKeyRequest``.
public struct RecipientKey: Codable, Sendable, Equatable {
    public var userID: UUID
    public var wrapped: Data
    public var signature: Data

    public init(userID: UUID, wrapped: Data, signature: Data) {
        self.userID = userID
        self.wrapped = wrapped
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case wrapped, signature
        case userID = "user_id"
    }
}

/// `POST /vaults/{id}/keys`: a new generation of the vault's key, wrapped to everyone in the vault
/// (the owner and every member, the caller among them) and to nobody else.
public struct RotateKeyRequest: Codable, Sendable, Equatable {
    /// One more than the vault's newest generation.
    public var generation: Int
    public var keyID: String
    public var recipients: [RecipientKey]

    public init(generation: Int, keyID: String, recipients: [RecipientKey]) {
        self.generation = generation
        self.keyID = keyID
        self.recipients = recipients
    }

    enum CodingKeys: String, CodingKey {
        case generation, recipients
        case keyID = "key_id"
    }
}
