import Foundation
@testable import Postgres
import TestSupport
import Testing

/// Who gets a freed connection (``FairTurn``): the table, then a real pool of one connection.
struct FairTurnTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Oldest first: requester, milliseconds waited, recent use.
        let waiting: [(Int?, Int, Double)]
        let next: Int?
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "none waits", waiting: [], next: nil),
        Case(name: "one waits", waiting: [(1, 5, 9)], next: 0),
        Case(name: "equal use: the oldest waiter", waiting: [(1, 30, 2), (2, 20, 2), (3, 10, 2)], next: 0),
        Case(name: "the requester that used the pool least, though it came last", waiting: [(1, 30, 8), (1, 20, 8), (2, 1, 0.5)], next: 2),
        Case(name: "a requester never seen counts nothing", waiting: [(1, 30, 3), (nil, 5, 0)], next: 1),
        Case(name: "the oldest of the least used", waiting: [(1, 30, 8), (2, 20, 1), (3, 10, 1)], next: 1),
        Case(name: "a waiter past its patience goes first", waiting: [(1, 2_500, 40), (2, 1, 0)], next: 0),
        Case(name: "the oldest of those past their patience", waiting: [(2, 1, 0), (1, 3_000, 40), (3, 2_000, 50)], next: 1),
    ])
    func theNextWaiter(_ c: Case) {
        let waiting = c.waiting.map { FairTurn.Waiting(requester: $0.0, waited: .milliseconds($0.1), usage: $0.2) }
        #expect(FairTurn.next(waiting, patience: .seconds(2)) == c.next)
    }

    @Test func aUseCountsOneAndHalvesEachHalfLife() {
        let start = ContinuousClock.now
        let used = FairTurn.Usage(count: 1, at: start).adding(at: start)
        #expect(used.now(start) == 2)
        #expect(abs(used.now(start + FairTurn.halfLife) - 1) < 1e-9)
        #expect(abs(used.now(start + FairTurn.halfLife * 3) - 0.25) < 1e-9)
        #expect(abs(used.adding(at: start + FairTurn.halfLife).count - 2) < 1e-9)
        #expect(used.now(start - .seconds(1)) == 2, "an instant before the last use forgets nothing")
    }

    /// One connection, held by a device that has used it a lot; four more of its requests wait, then
    /// one of another device: that one is served first, then the first device's in their order.
    @Test func aRequesterThatAsksRarelyIsServedBeforeOneThatAsksOften() async throws {
        // Patience longer than the test, so that a slow machine cannot turn the order into arrival order.
        let pool = PostgresPool(
            connectionString: try await TestCluster.newDatabase(), maxConnections: 1, acquireTimeout: .seconds(120), logger: TestCluster.quietLogger,
            patience: .seconds(600))
        let order = OrderLog()
        try await PostgresPool.$requester.withValue(1) {
            for _ in 0..<5 { _ = try await pool.withConnection { try $0.query("SELECT 1") } }
        }
        let holding = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await PostgresPool.$requester.withValue(1) {
                try await pool.withReservedConnection { _ in
                    holding.continuation.yield()
                    for await _ in release.stream { break }
                }
            }
        }
        for await _ in holding.stream { break }
        var waiters: [Task<Void, any Error>] = []
        for (index, requester) in [(1, 1), (2, 1), (3, 1), (4, 1), (5, 2)] {
            waiters.append(Task {
                try await PostgresPool.$requester.withValue(requester) {
                    _ = try await pool.withConnection { try $0.query("SELECT $1::int", [index]) }
                    await order.add(index)
                }
            })
            while pool.waiting < index { try await Task.sleep(for: .milliseconds(5)) }
        }
        release.continuation.yield()
        try await holder.value
        for waiter in waiters { try await waiter.value }
        #expect(await order.items == [5, 1, 2, 3, 4])
        await pool.close()
    }
}

private actor OrderLog {
    private(set) var items: [Int] = []
    func add(_ item: Int) { items.append(item) }
}
