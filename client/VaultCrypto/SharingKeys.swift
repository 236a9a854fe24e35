public import Crypto
public import Foundation
public import SyncProtocol

/// An account's keys for shared encrypted vaults (issue 34; `docs/decisions/0003-shared-encrypted-vaults.md`):
/// X25519 to receive vault keys wrapped to it (``MemberWrappedKey``), Ed25519 to sign the keys it
/// wraps for others. Made on a device; the private half leaves it only sealed under the account's
/// passphrase or recovery key (``SealedSharingKeys``).
public struct SharingKeys: Sendable {
    public let agreement: Curve25519.KeyAgreement.PrivateKey
    public let signing: Curve25519.Signing.PrivateKey

    /// Bytes of the private half: the agreement key's 32, then the signing key's 32.
    public static let byteCount = 64

    public static func generate() -> SharingKeys {
        SharingKeys(agreement: Curve25519.KeyAgreement.PrivateKey(), signing: Curve25519.Signing.PrivateKey())
    }

    public init(agreement: Curve25519.KeyAgreement.PrivateKey, signing: Curve25519.Signing.PrivateKey) {
        self.agreement = agreement
        self.signing = signing
    }

    /// The keys from their 64 bytes (``bytes``).
    /// - Throws: ``VaultCryptoError/malformed(_:)`` for any other shape.
    public init(bytes: Data) throws(VaultCryptoError) {
        guard bytes.count == Self.byteCount,
            let agreement = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: bytes.prefix(32)),
            let signing = try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes.suffix(32))
        else { throw .malformed("sharing keys have \(Self.byteCount) bytes, not \(bytes.count)") }
        self.init(agreement: agreement, signing: signing)
    }

    /// The private half (the device's key store; never sent in the clear).
    public var bytes: Data { agreement.rawRepresentation + signing.rawRepresentation }

    public var publicKeys: SharingPublicKeys {
        SharingPublicKeys(checked: agreement.publicKey.rawRepresentation, signing.publicKey.rawRepresentation)
    }
}

/// The public half of an account's ``SharingKeys``: what the server keeps and hands to the people
/// who share a vault with the account.
public struct SharingPublicKeys: Sendable, Hashable {
    /// The X25519 public key (32 bytes).
    public let agreement: Data
    /// The Ed25519 public key (32 bytes).
    public let signing: Data

    /// - Throws: ``VaultCryptoError/malformed(_:)`` when either is not a public key.
    public init(agreement: Data, signing: Data) throws(VaultCryptoError) {
        guard (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: agreement)) != nil,
            (try? Curve25519.Signing.PublicKey(rawRepresentation: signing)) != nil
        else { throw .malformed("sharing public keys are two keys of 32 bytes") }
        self.init(checked: agreement, signing)
    }

    init(checked agreement: Data, _ signing: Data) {
        self.agreement = agreement
        self.signing = signing
    }

    /// The safety number two people compare out of band (``SafetyNumber``): a server that hands
    /// out another key cannot keep the number.
    public var safetyNumber: String {
        SafetyNumber.of(agreementKey: agreement, signingKey: signing)
    }
}

/// A vault key wrapped to one member's agreement key for one vault and generation (format 2),
/// and the signature of the member who wrapped it, so that a device takes only a key a person of
/// the vault gave for that vault and that generation, never one the server made up or moved.
///
/// `wrapped` = `02` ‖ ephemeral X25519 public key (32) ‖ nonce (12) ‖ AES-256-GCM ciphertext of the
/// vault key (32) ‖ tag (16): 93 bytes. The key-encryption key is HKDF-SHA256 of the X25519 shared
/// secret, with the ephemeral and the recipient's public keys as salt and `"vaultsync v1 member
/// wrap"` as info. With the context = vault id (16) ‖ generation (4, big-endian), the authenticated
/// data is `"vaultsync v1 member key"` ‖ `02` ‖ context ‖ key id ‖ the recipient's public key, and
/// `signature` is Ed25519 over `"vaultsync v1 member key signature"` ‖ `02` ‖ context ‖ key id ‖
/// the recipient's agreement key ‖ `wrapped`. Format 1 (`01`, no context, the signature without
/// the format byte) is still read: grants made before format 2 open until the key is renewed.
public struct MemberWrappedKey: Sendable, Equatable {
    public static let format: UInt8 = 2
    public static let wrappedByteCount = 1 + 32 + 12 + VaultKey.byteCount + 16

    public let wrapped: Data
    public let signature: Data

    public init(wrapped: Data, signature: Data) {
        self.wrapped = wrapped
        self.signature = signature
    }

    /// What a wrap is for: the vault and the key's generation in it.
    public struct Context: Sendable, Equatable {
        public let vaultID: UUID
        public let generation: Int

        public init(vaultID: UUID, generation: Int) {
            self.vaultID = vaultID
            self.generation = generation
        }

        var bytes: Data {
            let id = vaultID.uuid
            let g = UInt32(clamping: generation)
            return Data([id.0, id.1, id.2, id.3, id.4, id.5, id.6, id.7, id.8, id.9, id.10, id.11, id.12, id.13, id.14, id.15])
                + Data([UInt8(g >> 24), UInt8(g >> 16 & 0xFF), UInt8(g >> 8 & 0xFF), UInt8(g & 0xFF)])
        }
    }

    /// `key` wrapped to `recipient` for `context`, signed by `sender`. The ephemeral key and nonce
    /// are fresh unless given (the known-answer tests give them).
    public static func wrap(
        _ key: VaultKey, to recipient: SharingPublicKeys, by sender: SharingKeys, for context: Context,
        ephemeral: Curve25519.KeyAgreement.PrivateKey = .init(), nonce: AES.GCM.Nonce = .init()
    ) throws -> MemberWrappedKey {
        try wrap(key, to: recipient, by: sender, format: format, context: context.bytes, ephemeral: ephemeral, nonce: nonce)
    }

    /// Format 1, which binds no vault or generation: for the known-answer tests of what older
    /// clients wrote. Nothing writes it any more.
    static func wrapUnbound(
        _ key: VaultKey, to recipient: SharingPublicKeys, by sender: SharingKeys, ephemeral: Curve25519.KeyAgreement.PrivateKey, nonce: AES.GCM.Nonce
    ) throws -> MemberWrappedKey {
        try wrap(key, to: recipient, by: sender, format: 1, context: Data(), ephemeral: ephemeral, nonce: nonce)
    }

    private static func wrap(
        _ key: VaultKey, to recipient: SharingPublicKeys, by sender: SharingKeys, format: UInt8, context: Data,
        ephemeral: Curve25519.KeyAgreement.PrivateKey, nonce: AES.GCM.Nonce
    ) throws -> MemberWrappedKey {
        let recipientKey = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipient.agreement)
        let ephemeralPublic = ephemeral.publicKey.rawRepresentation
        let kek = try keyEncryptionKey(try ephemeral.sharedSecretFromKeyAgreement(with: recipientKey), ephemeralPublic, recipient.agreement)
        let box = try AES.GCM.seal(key.bytes, using: kek, nonce: nonce, authenticating: aad(format, context, key.id, recipient.agreement))
        let wrapped = Data([format]) + ephemeralPublic + Data(box.nonce) + box.ciphertext + box.tag
        return MemberWrappedKey(wrapped: wrapped, signature: try sender.signing.signature(for: signed(format, context, key.id, recipient.agreement, wrapped)))
    }

    /// The vault key `keyID` names, when `sender` signed this for `context` and it was wrapped to
    /// `keys` (a format 1 wrap names no context and is taken for any).
    /// - Throws: ``VaultCryptoError/corrupt(_:)`` for a signature that is not the sender's (or
    ///   not for this vault and generation) or bytes that fail authentication;
    ///   ``VaultCryptoError/malformed(_:)`` for another format.
    public func unwrap(keyID: KeyID, for context: Context, with keys: SharingKeys, from sender: SharingPublicKeys) throws(VaultCryptoError) -> VaultKey {
        guard wrapped.count == Self.wrappedByteCount, let format = wrapped.first, format == 1 || format == Self.format else {
            throw .malformed("a member's wrapped key of format \(wrapped.first.map(String.init) ?? "none") and \(wrapped.count) bytes is not one this client reads: update vaultsync")
        }
        let bound = format == 1 ? Data() : context.bytes
        let own = keys.agreement.publicKey.rawRepresentation
        guard let signer = try? Curve25519.Signing.PublicKey(rawRepresentation: sender.signing),
            signer.isValidSignature(signature, for: Self.signed(format, bound, keyID, own, wrapped))
        else { throw .corrupt("a vault key signed for this account (for generation \(context.generation) of this vault)") }
        let ephemeralPublic = wrapped.subdata(in: 1..<33)
        let bytes: Data
        do {
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeralPublic)
            let kek = try Self.keyEncryptionKey(try keys.agreement.sharedSecretFromKeyAgreement(with: ephemeral), ephemeralPublic, own)
            bytes = try AES.GCM.open(AES.GCM.SealedBox(combined: wrapped.subdata(in: 33..<wrapped.count)), using: kek, authenticating: Self.aad(format, bound, keyID, own))
        } catch {
            throw .corrupt("a vault key wrapped to this account")
        }
        let key = try VaultKey(bytes: bytes)
        guard key.id == keyID else { throw .corrupt("a vault key wrapped to this account") }
        return key
    }

    static func keyEncryptionKey(_ secret: SharedSecret, _ ephemeral: Data, _ recipient: Data) throws -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeral + recipient, sharedInfo: Data(Label.memberWrap.utf8), outputByteCount: 32)
    }

    static func aad(_ format: UInt8, _ context: Data, _ id: KeyID, _ recipient: Data) -> Data {
        Data(Label.memberKey.utf8) + [format] + context + id.bytes + recipient
    }

    /// Format 1 signed no format byte; format 2 signs it and the context.
    static func signed(_ format: UInt8, _ context: Data, _ id: KeyID, _ recipient: Data, _ wrapped: Data) -> Data {
        Data(Label.memberSignature.utf8) + (format == 1 ? Data() : Data([format])) + context + id.bytes + recipient + wrapped
    }
}

/// An account's ``SharingKeys`` sealed under its passphrase and under its recovery key, as the
/// vault key is in a ``KeyEnvelope`` (the same scrypt cost and wrapping), with the public half in
/// the clear: what the server keeps and cannot open.
public struct SealedSharingKeys: Sendable, Equatable {
    public let publicKeys: SharingPublicKeys
    public let scrypt: ScryptParameters
    /// nonce (12) ‖ AES-256-GCM ciphertext of ``SharingKeys/bytes`` (64) ‖ tag (16): 92 bytes.
    public let passphraseSealed: Data
    public let recoverySealed: Data

    public init(publicKeys: SharingPublicKeys, scrypt: ScryptParameters, passphraseSealed: Data, recoverySealed: Data) {
        self.publicKeys = publicKeys
        self.scrypt = scrypt
        self.passphraseSealed = passphraseSealed
        self.recoverySealed = recoverySealed
    }

    /// `keys` sealed under `passphrase` (with `scrypt`) and under `recoveryKey`. The authenticated
    /// data is `"vaultsync v1 sharing keys"` ‖ the two public keys, so the sealed half cannot be
    /// paired with another public half.
    public static func seal(
        _ keys: SharingKeys, passphrase: String, recoveryKey: RecoveryKey, scrypt: ScryptParameters = .standard(),
        nonces: (AES.GCM.Nonce, AES.GCM.Nonce) = (.init(), .init())
    ) throws -> SealedSharingKeys {
        let publicKeys = keys.publicKeys
        let aad = Self.aad(publicKeys)
        let byPassphrase = try AES.GCM.seal(keys.bytes, using: try KeyWrap.passphraseKey(passphrase, scrypt), nonce: nonces.0, authenticating: aad)
        let byRecovery = try AES.GCM.seal(keys.bytes, using: recoveryKey.keyEncryptionKey, nonce: nonces.1, authenticating: aad)
        return SealedSharingKeys(
            publicKeys: publicKeys, scrypt: scrypt, passphraseSealed: byPassphrase.combined ?? Data(), recoverySealed: byRecovery.combined ?? Data())
    }

    /// The same keys sealed under another passphrase; the recovery key's seal stays as it is.
    public func resealed(_ keys: SharingKeys, passphrase: String, scrypt: ScryptParameters = .standard(), nonce: AES.GCM.Nonce = .init()) throws -> SealedSharingKeys {
        guard keys.publicKeys == publicKeys else { throw VaultCryptoError.corrupt("the sharing keys") }
        let sealed = try AES.GCM.seal(keys.bytes, using: try KeyWrap.passphraseKey(passphrase, scrypt), nonce: nonce, authenticating: Self.aad(publicKeys))
        return SealedSharingKeys(publicKeys: publicKeys, scrypt: scrypt, passphraseSealed: sealed.combined ?? Data(), recoverySealed: recoverySealed)
    }

    /// The keys, with the passphrase.
    /// - Throws: ``VaultCryptoError/wrongSecret`` for another passphrase.
    public func open(passphrase: String) throws(VaultCryptoError) -> SharingKeys {
        let kek: SymmetricKey
        do {
            kek = try KeyWrap.passphraseKey(passphrase, scrypt)
        } catch {
            throw .malformed("the sharing keys' scrypt parameters do not work: \(error)")
        }
        return try open(passphraseSealed, under: kek)
    }

    /// The keys, with the recovery key.
    public func open(recoveryKey: RecoveryKey) throws(VaultCryptoError) -> SharingKeys {
        try open(recoverySealed, under: recoveryKey.keyEncryptionKey)
    }

    private func open(_ sealed: Data, under kek: SymmetricKey) throws(VaultCryptoError) -> SharingKeys {
        let bytes: Data
        do {
            bytes = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: kek, authenticating: Self.aad(publicKeys))
        } catch {
            throw .wrongSecret
        }
        let keys = try SharingKeys(bytes: bytes)
        guard keys.publicKeys == publicKeys else { throw .corrupt("the sharing keys") }
        return keys
    }

    static func aad(_ keys: SharingPublicKeys) -> Data {
        Data(Label.sharingKeys.utf8) + keys.agreement + keys.signing
    }
}
