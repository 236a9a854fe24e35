import CFileStat
import Foundation
import SyncCore
import SyncProtocol

extension SyncEngine {
    /// Keeps the files this device's profile keeps apart (``DeviceProfile``) equal to the class's
    /// copies: before a sync's scan (so a change Obsidian made here goes up as the copy) and after
    /// it (so a copy another device of the class changed reaches the disk file). Each write
    /// replaces only the file as read; one changed meanwhile is left for the next sync.
    /// - Returns: the copies it wrote (vault paths, for the scan to look at).
    func mirrorProfile(_ report: inout SyncReport) -> [String] {
        guard var record = DeviceProfileRecord.read(root: root), let profile = try? DeviceProfile(record.name) else { return [] }
        let before = record
        var wrote: [String] = []
        for file in DeviceProfile.files {
            let (diskPath, copyPath) = (DeviceProfile.diskPath(file), profile.copyPath(file))
            let disk = readWithStat(diskPath), copy = readWithStat(copyPath)
            let step = ProfileMirror.decide(disk: disk?.data, copy: copy?.data, agreed: record.agreed[file])
            do {
                switch step {
                case .none: continue
                case .agree(let data): record.agreed[file] = data
                case .writeCopy(let data):
                    try replace(copyPath, with: data, expected: copy)
                    wrote.append(copyPath)
                    record.agreed[file] = data
                case .writeDisk(let data):
                    try replace(diskPath, with: data, expected: disk)
                    record.agreed[file] = data
                    report.notices.append("\(diskPath): the \(profile.name) profile's list (\(copyPath)) taken here")
                case .writeBoth(let data):
                    try replace(diskPath, with: data, expected: disk)
                    try replace(copyPath, with: data, expected: copy)
                    wrote.append(copyPath)
                    record.agreed[file] = data
                    report.notices.append("\(diskPath): changed here and on another \(profile.name) device; both lists merged")
                }
            } catch {
                report.notices.append("\(diskPath): not matched with the \(profile.name) profile's list this time (\(error)); tried again at the next sync")
            }
        }
        do {
            if record != before { try DeviceProfileRecord.save(record, root: root) }
        } catch {
            report.notices.append("the \(profile.name) profile's record could not be saved (\(error)); the lists are matched again at the next sync")
        }
        return wrote
    }

    /// A vault file's bytes and the stat they were read at.
    private func readWithStat(_ path: String) -> (data: Data, stat: CachedStat)? {
        let url = root.appendingPathComponent(path)
        var info = vs_file_stat()
        guard vs_lstat(url.path, &info) == 0, info.kind == 1, let data = try? Data(contentsOf: url) else { return nil }
        return (data, CachedStat(sizeBytes: info.size, mtimeNanoseconds: info.mtime_ns, inode: info.inode, hash: ContentHasher.hash(data)))
    }

    /// Writes `data` to `path` atomically, if the file is still as read (`expected`; nil: absent).
    private func replace(_ path: String, with data: Data, expected: (data: Data, stat: CachedStat)?) throws {
        let staged = try writer.stage(data)
        try writer.commit(staged: staged, to: path, expected: expected.map { .unchanged($0.stat) } ?? .absent)
    }
}
