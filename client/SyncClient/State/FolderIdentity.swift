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

    /// The id recorded in `store`, creating both records for a folder linked before folders had
    /// one (only while the state folder is really there: a missing one is not re-created).
    func establish(_ store: StateStore) throws {
        guard try store.readMetaSync({ $0[.folderID] }) == nil else { return }
        let id = UUID().uuidString.lowercased()
        try Data((id + "\n").utf8).write(to: file, options: .atomic)
        try store.setMetaSync(.folderID, id)
    }

    /// Checks that the folder on disk is the one `store` describes.
    /// - Throws: ``SyncEngineError/folderGone(_:)`` when the folder or its state folder is not
    ///   there any more; ``SyncEngineError/folderReplaced(_:)`` when another folder's state is.
    func verify(_ store: StateStore) throws {
        guard let expected = try store.readMetaSync({ $0[.folderID] }) else { return try establish(store) }
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
