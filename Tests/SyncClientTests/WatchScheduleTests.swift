import Foundation
import SyncClient
import Testing

/// The watcher's timing rules, on instants the test chooses (nothing sleeps).
@Suite struct WatchScheduleTests {
    let start = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }

    func schedule() -> WatchSchedule {
        var settings = WatchSchedule.Settings()
        (settings.debounce, settings.maxDelay, settings.safetyInterval) = (.seconds(1), .seconds(120), .seconds(600))
        return WatchSchedule(settings: settings, start: start)
    }

    @Test func aLocalChangeWaitsUntilItsFileIsQuiet() {
        var schedule = schedule()
        #expect(schedule.nextSync == at(600) && schedule.dueReason == "safety-net", "nothing pending: the safety net")
        schedule.localChange("a.md", at: at(10))
        #expect(schedule.nextSync == at(11) && schedule.dueReason == "local")
        schedule.localChange("a.md", at: at(10.5))
        #expect(schedule.nextSync == at(11.5), "another write to the file restarts its quiet time")
        schedule.localChange("b.md", at: at(11))
        #expect(schedule.nextSync == at(11.5), "the first file to be quiet decides")
        #expect(schedule.pendingChanges == 2)
    }

    @Test func aFileThatKeepsChangingIsSyncedAtTheHardCap() {
        var schedule = schedule()
        for tenth in 0...2000 { schedule.localChange("log.md", at: at(5 + Double(tenth) / 10)) }
        #expect(schedule.nextSync == at(125), "two minutes after the first unsynced write, not after the writing stops")
    }

    @Test func changesFoundToBeNoneAreForgottenUnlessWrittenAgain() {
        var schedule = schedule()
        schedule.localChange("pulled.md", at: at(1))
        schedule.localChange("edited.md", at: at(1))
        let seen = schedule.pendingPaths
        schedule.localChange("edited.md", at: at(1.5))  // written again while the watcher looked
        schedule.dropUnchanged(seen)
        #expect(schedule.pendingPaths.keys.sorted() == ["edited.md"] && schedule.nextSync == at(2.5))
        schedule.dropUnchanged(schedule.pendingPaths)
        #expect(schedule.pendingChanges == 0 && schedule.nextSync == at(600), "nothing left: only the safety net")
    }

    @Test func theServerIsDueAtOnceAndASyncTakesEverythingPending() {
        var schedule = schedule()
        schedule.localChange("a.md", at: at(1))
        schedule.remoteChange()
        #expect(schedule.nextSync <= at(1) && schedule.dueReason == "server")
        schedule.syncStarted(at: at(2))
        #expect(schedule.pendingChanges == 0 && schedule.nextSync == at(602))
        schedule.localChange(nil, at: at(3))  // an overflow: something changed
        #expect(schedule.nextSync == at(4) && schedule.pendingChanges == 1, "a change during or after a sync waits for the next one")
    }

    /// A sync that did not get through took its changes off the pending list: it is tried again
    /// after 5 s, 10 s, 20 s… up to the hard cap, not at the safety net ten minutes later.
    @Test func aSyncThatDidNotGetThroughIsTriedAgainWithBackoff() {
        var schedule = schedule()
        schedule.localChange("a.md", at: at(10))
        schedule.syncStarted(at: at(11))
        schedule.syncFinished(at: at(12), gotThrough: false)
        #expect(schedule.nextSync == at(17) && schedule.dueReason == "retry")
        schedule.syncStarted(at: at(17))
        schedule.syncFinished(at: at(18), gotThrough: false)
        #expect(schedule.nextSync == at(28))
        for step in 0..<10 {
            schedule.syncStarted(at: at(100 + Double(step)))
            schedule.syncFinished(at: at(100 + Double(step)), gotThrough: false)
        }
        #expect(schedule.nextSync == at(109 + 120), "never longer than the hard cap")
        schedule.syncStarted(at: at(300))
        schedule.syncFinished(at: at(301), gotThrough: true)
        #expect(schedule.nextSync == at(900) && schedule.dueReason == "safety-net", "through: back to the safety net")
        schedule.syncFinished(at: at(302), gotThrough: false)
        #expect(schedule.nextSync == at(307), "the backoff starts again from 5 s")
    }

    /// Syncs of the paths named do not put the safety net off: in a vault other devices change
    /// every few minutes, a change the folder's watcher missed would otherwise never be found
    /// (the simulation's real watcher found it waiting so).
    @Test func theSafetyNetCountsFromTheLastWholeScan() {
        var schedule = schedule()
        #expect(schedule.syncStarted(at: at(0)) == nil)
        schedule.syncFinished(at: at(1), gotThrough: true)
        for minute in 1...9 {
            schedule.remoteChange()
            #expect(schedule.syncStarted(at: at(Double(minute * 60))) == [], "another device's change: no local path")
            schedule.syncFinished(at: at(Double(minute * 60 + 1)), gotThrough: true)
        }
        #expect(schedule.nextSync == at(600) && schedule.dueReason == "safety-net")
        #expect(schedule.syncStarted(at: at(600)) == nil, "the safety net reads everything")
        schedule.syncFinished(at: at(601), gotThrough: true)
        schedule.localChange("a.md", at: at(700))
        #expect(schedule.syncStarted(at: at(701)) == ["a.md"])
        schedule.syncFinished(at: at(702), gotThrough: true)
        #expect(schedule.nextSync == at(1200), "ten minutes after the whole scan, not after the last sync")
    }

    /// What each sync looks at: the first one, a safety-net one, one after a sync that did not get
    /// through and one after lost changes read the whole folder (nil); the others the paths named.
    @Test func aSyncLooksAtThePathsNamedOnceAWholeScanGotThrough() {
        var schedule = schedule()
        schedule.localChange("a.md", at: at(1))
        #expect(schedule.syncStarted(at: at(2)) == nil, "the first sync reads everything")
        schedule.syncFinished(at: at(3), gotThrough: true)

        schedule.localChange("a.md", at: at(4))
        schedule.localChange("notes", at: at(4))
        #expect(schedule.syncStarted(at: at(5)) == ["a.md", "notes"])
        schedule.syncFinished(at: at(6), gotThrough: true)

        schedule.remoteChange()
        #expect(schedule.syncStarted(at: at(7)) == [], "the server's changes alone: no local path")
        schedule.syncFinished(at: at(8), gotThrough: false)

        schedule.localChange("b.md", at: at(9))
        #expect(schedule.syncStarted(at: at(13)) == nil, "a.md and notes were taken by a sync that did not get through")
        schedule.syncFinished(at: at(14), gotThrough: true)

        schedule.localChange("b.md", at: at(15))
        schedule.localChange(nil, at: at(15))
        #expect(schedule.syncStarted(at: at(16)) == nil, "changes were lost")
        schedule.syncFinished(at: at(17), gotThrough: true)

        #expect(schedule.dueReason == "safety-net")
        #expect(schedule.syncStarted(at: schedule.nextSync) == nil, "the safety net reads everything")
        schedule.syncFinished(at: at(700), gotThrough: true)
        schedule.remoteChange()
        #expect(schedule.syncStarted(at: at(701)) == [])
    }
}
