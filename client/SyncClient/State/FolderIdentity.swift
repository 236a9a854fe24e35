import Foundation

/// The identity of a linked vault folder: a random id written at link time both into
/// `.vaultsync/folder-id` and into `sync.db`. Before each sync the file on disk (read by path, not
/// through the open database) must still say what the database says. A folder that was unmounted,
/// deleted or replaced while a watcher held its database open fails that check, so its missing
/// files are reported instead of being read as "the user deleted everything".
struct FolderIdentity: Sendable {
    static let fileName = "folder-id"

    let root: URL
    let stateFolder: URL
    /// The inode of the `sync.db` this process opened: a folder put back from a backup carries
    /// the same id, but its database is another file, which the open one must not be mistaken for.
    let openedDatabase: UInt64?

    init(root: URL, stateFolder: URL) {
        self.root = root
        self.stateFolder = stateFolder
        self.openedDatabase = SyncEngine.stat(stateFolder.appendingPathComponent("sync.db").path)?.inode
    }

    private var file: URL { stateFolder.appendingPathComponent(Self.fileName) }

    /// Makes sure both records exist, at the opening of the folder (a folder linked before folders
    /// had an id gets one). The id is decided inside one `sync.db` transaction, so two processes
    /// opening the folder at once agree on it; the file is then written from that id when missing.
    func establish(_ store: StateStore) throws {
        let id = try store.metaSyncInsertingIfMissing(.folderID, UUID().uuidString.lowercased())
        guard !FileManager.default.fileExists(atPath: file.path) else { return }
        try Data((id + "\n").utf8).write(to: file, options: .atomic)
    }

    /// Checks that the folder on disk is the one `store` describes.
    /// - Throws: ``SyncEngineError/folderGone(_:)`` when the folder or its state folder is not
    ///   there any more; ``SyncEngineError/folderReplaced(_:)`` when another folder's state is.
    func verify(_ store: StateStore) throws {
        guard let expected = try store.readMetaSync({ $0[.folderID] }) else { throw SyncEngineError.folderReplaced(root.path) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: file.path)
        else { throw SyncEngineError.folderGone(root.path) }
        guard String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == expected,
            SyncEngine.stat(stateFolder.appendingPathComponent("sync.db").path)?.inode == openedDatabase
        else {
            throw SyncEngineError.folderReplaced(root.path)
        }
    }
}
