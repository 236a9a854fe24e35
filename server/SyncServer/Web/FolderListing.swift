import Foundation

/// What a folder of the vault shows, from the live files under it: its subfolders (with how many
/// files and bytes lie below each, and the latest change) and its own files, each by name.
struct FolderListing: Equatable, Sendable {
    struct Subfolder: Equatable, Sendable {
        let name: String
        var files: Int
        var bytes: Int64
        var changed: Date
    }

    struct File: Equatable, Sendable {
        let name: String
        let entry: BrowseQueries.Entry
    }

    var folders: [Subfolder] = []
    var files: [File] = []

    /// `entries` are the live files whose path starts with `folder` ("" or ending in `/`), in path order.
    init(folder: String, entries: [BrowseQueries.Entry]) {
        var index: [String: Int] = [:]
        for entry in entries where entry.path.hasPrefix(folder) {
            let rest = entry.path.dropFirst(folder.count)
            guard let slash = rest.firstIndex(of: "/") else {
                files.append(File(name: String(rest), entry: entry))
                continue
            }
            let name = String(rest[..<slash])
            if let at = index[name] {
                folders[at].files += 1
                folders[at].bytes += entry.sizeBytes
                folders[at].changed = max(folders[at].changed, entry.updatedAt)
            } else {
                index[name] = folders.count
                folders.append(Subfolder(name: name, files: 1, bytes: entry.sizeBytes, changed: entry.updatedAt))
            }
        }
    }

    /// The folders a path lies in, outermost first, each as (name, folder prefix ending in `/`).
    static func ancestors(of path: String) -> [(name: String, folder: String)] {
        var result: [(String, String)] = []
        var prefix = ""
        for part in path.split(separator: "/").dropLast() {
            prefix += part + "/"
            result.append((String(part), prefix))
        }
        return result
    }
}
