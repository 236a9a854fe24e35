public import Foundation

/// An encrypted vault's keys by generation (`docs/decisions/0003-shared-encrypted-vaults.md`):
/// generation 1, whose name key every path is encrypted under, then one more each time a member
/// left or was removed. New versions are sealed under the newest; a version is opened with the
/// generation its header names.
public struct VaultKeyring: Sendable {
    /// Generation 1 first; never empty.
    public let generations: [VaultKey]

    /// - Precondition: `generations` is not empty.
    public init(_ generations: [VaultKey]) {
        precondition(!generations.isEmpty, "a keyring holds generation 1 at least")
        self.generations = generations
    }

    /// Generation 1: the key of the passphrase's key envelope, and of names until a rekey.
    public var names: VaultKey { generations[0] }

    /// The generation numbered `generation` (1 first), if this keyring holds it.
    public func generation(_ generation: Int) -> VaultKey? {
        generation >= 1 && generation <= generations.count ? generations[generation - 1] : nil
    }
    /// The newest generation: what a new version is sealed under.
    public var current: VaultKey { generations[generations.count - 1] }

    /// The generation with id `id`.
    public func key(_ id: KeyID) -> VaultKey? {
        generations.first { $0.id == id }
    }

    /// The generation an encrypted file's header names.
    /// - Throws: ``VaultCryptoError/malformed(_:)`` for a header of another format;
    ///   ``VaultCryptoError/corrupt(_:)`` for a key this keyring does not hold.
    func key(forHeader header: Data) throws(VaultCryptoError) -> VaultKey {
        guard header.count >= 12, Array(header.prefix(4)) == FileFormat.magic else { throw .malformed("not a VaultSync encrypted file (format 1)") }
        let id = KeyID(bytes: Array(header[header.startIndex + 4..<header.startIndex + 12]))
        guard let key = key(id) else { throw .corrupt("a file encrypted with a vault key this device does not hold (\(id))") }
        return key
    }
}
