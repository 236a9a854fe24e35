public import Foundation
public import SyncProtocol

/// Linked folders inside or around one another. A folder holding `.vaultsync/` is a vault of its
/// own: a vault around it must not sync its files (they would land in the outer vault, and reach
/// every member of it), so the scanner never enters one and `init` links no folder inside or above
/// a linked one.
public enum NestedVaults {
    /// Whether `folder` is a linked folder (it holds `.vaultsync/`).
    public static func isLinked(_ folder: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent(VaultPath.stateFolderName).path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The linked folder nearest above `root` (not `root` itself), if any.
    public static func linkedAbove(_ root: URL) -> URL? {
        var folder = root.standardizedFileURL.resolvingSymlinksInPath()
        while folder.pathComponents.count > 1 {
            folder = folder.deletingLastPathComponent()
            if isLinked(folder) { return folder }
        }
        return nil
    }

    /// The first linked folder below `root` (not `root` itself), if any; symbolic links are not
    /// followed, as the scanner follows none.
    public static func linkedBelow(_ root: URL) -> URL? {
        var pending = [root.standardizedFileURL]
        while let folder = pending.popLast() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name != VaultPath.stateFolderName {
                let child = folder.appendingPathComponent(name)
                guard let kind = try? FileManager.default.attributesOfItem(atPath: child.path)[.type] as? FileAttributeType, kind == .typeDirectory else { continue }
                if isLinked(child) { return child }
                pending.append(child)
            }
        }
        return nil
    }
}
