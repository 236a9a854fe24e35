import Foundation
import SyncProtocol

/// `.vaultsync/partial/`: downloads in progress, one file per path and content, so that one cut
/// off resumes (`Range`) where it stopped. Outside the vault's files; a partial is only ever
/// renamed into the vault after its whole content checked against the hash.
struct PartialDownloads: Sendable {
    let folder: URL

    init(stateFolder: URL) {
        folder = stateFolder.appendingPathComponent("partial")
    }

    /// Where the download of this path and content goes. Another version of the path has another
    /// name, so a partial of a version that changed meanwhile is never continued.
    func file(for download: Download) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(Self.name(path: download.path, hash: download.contentHash))
    }

    static func name(path: VaultPath, hash: ContentHash) -> String {
        String(ContentHasher.hash(Data((path.rawValue + "\n" + hash.rawValue).utf8)).rawValue.split(separator: ":").last ?? "")
    }

    /// Removes every partial: called once a sync applied all the server's changes, when none is
    /// still to be continued (a version that changed meanwhile left its partial behind).
    func removeAll() {
        try? FileManager.default.removeItem(at: folder)
    }
}
