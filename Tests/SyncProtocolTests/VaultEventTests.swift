import SyncProtocol
import Testing

/// Which feed messages a device that leaves folders out need not hear (``VaultEvent/liesWithin(_:)``).
@Suite struct VaultEventTests {
    static let rows: [(event: VaultEvent, folders: [String], within: Bool, why: String)] = [
        (changed(["Archive/a.md"]), ["Archive/"], true, "one path, inside"),
        (changed(["Archive/a.md", "Café Notes/x/y.md"]), ["Archive/", "Café Notes/"], true, "every path inside one of them"),
        (changed(["Archive/a.md", "notes/b.md"]), ["Archive/"], false, "a path outside"),
        (changed(["Archived/a.md"]), ["Archive/"], false, "a folder of a similar name"),
        (changed(["Archive"]), ["Archive/"], false, "a file named as the folder"),
        (changed(["Archive/a.md"], more: true), ["Archive/"], false, "others changed that are not listed"),
        (changed([]), ["Archive/"], false, "no paths"),
        (changed(["Archive/a.md"]), [], false, "nothing left out"),
        (VaultEvent(type: .catchUp), ["Archive/"], false, "a catch-up is for everyone"),
        (VaultEvent(type: .ready), ["Archive/"], false, "ready is not a change"),
    ]

    static func changed(_ paths: [String], more: Bool = false) -> VaultEvent {
        VaultEvent(type: .changed, sequence: 1, paths: paths.map { try! VaultPath($0) }, more: more)
    }

    @Test func aChangeLiesWithinTheFoldersOnlyWhenEveryPathDoes() {
        for row in Self.rows {
            #expect(row.event.liesWithin(row.folders) == row.within, "\(row.why)")
        }
    }
}
