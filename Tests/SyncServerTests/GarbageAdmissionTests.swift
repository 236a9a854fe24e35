import Foundation
@testable import SyncServer
import Testing

/// What `blobs gc` may remove, as a table: known objects stay whatever their age, unknown ones
/// only once they are older than the upload grace (the boundary itself stays).
@Suite struct GarbageAdmissionTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let grace: Duration = .seconds(3600)

    @Test(arguments: [
        (age: 10.0, known: true, verdict: GarbageAdmission.Verdict.keepKnown),
        (age: 100_000, known: true, verdict: .keepKnown),
        (age: 10, known: false, verdict: .keepYoung),
        (age: 3600, known: false, verdict: .keepYoung),
        (age: 3601, known: false, verdict: .collect),
        (age: 100_000, known: false, verdict: .collect),
        (age: -60, known: false, verdict: .keepYoung),  // a store clock ahead of ours
    ])
    func blobsAndUploads(_ row: (age: Double, known: Bool, verdict: GarbageAdmission.Verdict)) {
        let written = Self.now.addingTimeInterval(-row.age)
        #expect(GarbageAdmission.blob(modifiedAt: written, known: row.known, now: Self.now, grace: Self.grace) == row.verdict)
        #expect(GarbageAdmission.upload(activeAt: written, known: row.known, now: Self.now, grace: Self.grace) == row.verdict)
    }
}
