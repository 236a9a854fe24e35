import Foundation
import SyncProtocol
import VaultCrypto
import ZIPFoundation

extension ExportArchive {
    /// Writes the plaintext of a verified export of an encrypted vault to `destination`: every
    /// entry checked against the server's manifest, decrypted (name and bytes) one file at a time
    /// through two hidden files in the folder `staging` (removed on return), and a manifest of the
    /// plaintext (paths, hashes and sizes; versions and dates as the server's). The caller verifies
    /// the result like any archive.
    /// - Throws: ``ExportArchiveError/invalid(_:)`` naming the first entry that fails authentication.
    static func decrypt(_ zip: URL, manifest: ExportManifest, keys: VaultKeyring, to destination: URL, staging: URL) throws -> ExportManifest {
        let source = try open(zip)
        let target = try Archive(url: destination, accessMode: .create)
        // The names are under one generation's name key: the first until a rekey, a later one after.
        let names = keys.generations.reversed().map { NameCipher(vaultKey: $0) }
        let sealed = staging.appendingPathComponent(".vaultsync-export-sealed-\(UUID().uuidString)")
        let plain = staging.appendingPathComponent(".vaultsync-export-plain-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: sealed)
            try? FileManager.default.removeItem(at: plain)
        }
        var files: [ExportedFile] = []
        for file in manifest.files {
            guard let entry = source[file.path.rawValue] else { throw ExportArchiveError.missing(file.path.rawValue) }
            FileManager.default.createFile(atPath: sealed.path, contents: nil)
            let handle = try FileHandle(forWritingTo: sealed)
            do {
                try check(entry, in: source, against: file) { try handle.write(contentsOf: $0) }
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            let path: VaultPath
            let content: (hash: ContentHash, sizeBytes: Int64)
            do {
                path = try Self.name(file.path, names)
                content = try EncryptedFiles.decrypt(sealed, to: plain, keys: keys)
            } catch let error as VaultCryptoError {
                throw ExportArchiveError.invalid("the server's copy of a file (\(file.path.rawValue.prefix(24))…) cannot be decrypted: \(error)")
            }
            try FileManager.default.setAttributes([.modificationDate: file.updatedAt], ofItemAtPath: plain.path)
            try target.addEntry(with: path.rawValue, fileURL: plain, compressionMethod: .deflate)
            files.append(ExportedFile(path: path, version: file.version, contentHash: content.hash, sizeBytes: content.sizeBytes, updatedAt: file.updatedAt, updatedByDevice: file.updatedByDevice))
        }
        let plaintext = ExportManifest(exportedAt: manifest.exportedAt, vault: manifest.vault, files: files)
        let encoder = WireCoding.encoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(plaintext).write(to: plain)
        try target.addEntry(with: ExportManifest.entryName, fileURL: plain, compressionMethod: .deflate)
        return plaintext
    }

    /// The plaintext of an encrypted name under the first of `names` that opens it.
    private static func name(_ path: VaultPath, _ names: [NameCipher]) throws(VaultCryptoError) -> VaultPath {
        for cipher in names.dropLast() { if let plain = try? cipher.decrypt(path) { return plain } }
        return try names[names.count - 1].decrypt(path)
    }
}
