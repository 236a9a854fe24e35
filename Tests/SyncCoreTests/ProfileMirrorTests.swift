import Foundation
import SyncCore
import Testing

/// How a profile's disk file and its class's copy are kept equal (``ProfileMirror``), as a table.
@Suite struct ProfileMirrorTests {
    static func d(_ text: String) -> Data { Data(text.utf8) }

    static let rows: [(disk: String?, copy: String?, agreed: String?, step: ProfileMirror.Step, why: String)] = [
        (nil, nil, nil, .none, "neither exists"),
        (#"["a"]"#, #"["a"]"#, nil, .agree(d(#"["a"]"#)), "equal: agreed"),
        (#"["a"]"#, nil, nil, .writeCopy(d(#"["a"]"#)), "the class has no list yet: this device's starts it"),
        (#"["a"]"#, nil, #"["a"]"#, .writeCopy(d(#"["a"]"#)), "the copy went: written again from the disk file"),
        (nil, #"["a"]"#, nil, .writeDisk(d(#"["a"]"#)), "Obsidian has no list here: it takes the class's"),
        (#"["a","b"]"#, #"["a"]"#, #"["a"]"#, .writeCopy(d(#"["a","b"]"#)), "changed here: the copy takes it"),
        (#"["a"]"#, #"["a","c"]"#, #"["a"]"#, .writeDisk(d(#"["a","c"]"#)), "changed on another device of the class: the disk file takes it"),
        (#"["a","b"]"#, #"["c"]"#, nil, .writeDisk(d(#"["c"]"#)), "joining a class takes its list"),
        (#"["a","b"]"#, #"["c"]"#, #"["a","b","c"]"#, .writeBoth(d("[]")), "here c was turned off, there a and b: none is left"),
        (#"["a","b","x"]"#, #"["a","y"]"#, #"["a","b"]"#, .writeBoth(d("[\n  \"a\",\n  \"x\",\n  \"y\"\n]")),
         "both changed: here x added, there b removed and y added"),
        (#"["a"]"#, #"["b"]"#, #"["c"]"#, .writeBoth(d("[\n  \"a\",\n  \"b\"\n]")), "both replaced the list: both additions kept"),
        (#"["a", "b"]"#, #"["a", "b/c"]"#, #"["a"]"#, .writeBoth(d("[\n  \"a\",\n  \"b\",\n  \"b/c\"\n]")), "both added one (a slash written as is)"),
        (#"[1, 2]"#, #"[3]"#, #"[1]"#, .writeCopy(d(#"[1, 2]"#)), "not a list of names: this device's is kept (the copy's versions stay in history)"),
    ]

    @Test func theDiskFileAndTheCopyAreKeptEqual() {
        for row in Self.rows {
            let step = ProfileMirror.decide(disk: row.disk.map(Self.d), copy: row.copy.map(Self.d), agreed: row.agreed.map(Self.d))
            #expect(step == row.step, "\(row.why): \(step)")
        }
    }

    @Test func profileNamesAreFolderNames() throws {
        for good in ["desktop", "phone", "tablet-2", "work_laptop"] { #expect(try DeviceProfile(good).copyPath("community-plugins.json") == ".obsidian/vaultsync-profiles/\(good)/community-plugins.json") }
        for bad in ["", "Phone", "a/b", "..", "none", String(repeating: "a", count: 33), "café"] {
            #expect(throws: DeviceProfileError.badName(bad)) { try DeviceProfile(bad) }
        }
    }
}
