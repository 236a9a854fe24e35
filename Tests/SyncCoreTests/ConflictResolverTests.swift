import Foundation
import SyncCore
import Testing

/// The seed's two scenario tables (auto-merge and needs-user), plus the merge's own rules.
@Suite struct ConflictResolverTests {
    static let base = """
        ---
        title: Beyond Good and Evil
        status: reading
        tags: [philosophy, nietzsche]
        updated: 2026-03-20T10:00:00Z
        ---
        # Notes

        First paragraph about prejudices of philosophers.

        Second paragraph about the free spirit.

        Third paragraph about virtues.
        """

    func edit(_ text: String, _ replacements: [(String, String)]) -> String {
        replacements.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    func merged(_ local: String, _ remote: String, base: String? = ConflictResolverTests.base) -> String? {
        if case .merged(let text) = ConflictResolver.resolve(local: local, remote: remote, base: base) { return text }
        return nil
    }

    // MARK: auto-merge scenarios

    @Test func onlyTheUpdatedTimestampDiffersTakesTheLater() {
        let local = edit(Self.base, [("updated: 2026-03-20T10:00:00Z", "updated: 2026-03-21T09:00:00Z")])
        let remote = edit(Self.base, [("updated: 2026-03-20T10:00:00Z", "updated: 2026-03-22T08:00:00Z")])
        #expect(merged(local, remote) == remote)
        #expect(merged(remote, local) == remote)
    }

    @Test func tagsAddedOnBothSidesAreUnited() {
        let local = edit(Self.base, [("tags: [philosophy, nietzsche]", "tags: [philosophy, nietzsche, ethics]")])
        let remote = edit(Self.base, [("tags: [philosophy, nietzsche]", "tags: [philosophy, nietzsche, german]")])
        #expect(merged(local, remote) == edit(Self.base, [("tags: [philosophy, nietzsche]", "tags: [philosophy, nietzsche, ethics, german]")]))
    }

    @Test func tagRemovalsOnEitherSideAreKept() {
        let local = edit(Self.base, [("tags: [philosophy, nietzsche]", "tags: [nietzsche, ethics]")])
        let remote = edit(Self.base, [("tags: [philosophy, nietzsche]", "tags: [philosophy, german]")])
        #expect(merged(local, remote) == edit(Self.base, [("tags: [philosophy, nietzsche]", "tags: [ethics, german]")]))
    }

    @Test func blockListsMergeAsSetsToo() {
        let base = "---\ntags:\n  - a\n  - b\n---\nbody\n"
        let local = "---\ntags:\n  - a\n  - b\n  - c\n---\nbody\n"
        let remote = "---\ntags:\n  - b\n  - d\n---\nbody\n"
        #expect(merged(local, remote, base: base) == "---\ntags:\n  - b\n  - c\n  - d\n---\nbody\n")
    }

    @Test func statusOnOneSideAndBodyOnTheOtherAreBothKept() {
        let local = edit(Self.base, [("status: reading", "status: finished")])
        let remote = edit(Self.base, [("Second paragraph about the free spirit.", "Second paragraph about the free spirit, revised.")])
        #expect(merged(local, remote) == edit(Self.base, [("status: reading", "status: finished"), ("Second paragraph about the free spirit.", "Second paragraph about the free spirit, revised.")]))
    }

    @Test func annotationsAddedOnOneSideAndBodyEditedOnTheOther() {
        let local = edit(Self.base, [("status: reading\n", "status: reading\nannotations:\n  - p. 12 on truth\n")])
        let remote = edit(Self.base, [("Third paragraph about virtues.", "Third paragraph about virtues and vices.")])
        let result = merged(local, remote)
        #expect(result == edit(Self.base, [("status: reading\n", "status: reading\nannotations:\n  - p. 12 on truth\n"), ("Third paragraph about virtues.", "Third paragraph about virtues and vices.")]))
    }

    @Test func nonOverlappingBodyEditsAreBothKept() {
        let local = edit(Self.base, [("First paragraph about prejudices of philosophers.", "First paragraph, edited on the laptop.")])
        let remote = edit(Self.base, [("Third paragraph about virtues.", "Third paragraph, edited on the phone.")])
        let result = merged(local, remote)
        #expect(result?.contains("First paragraph, edited on the laptop.") == true)
        #expect(result?.contains("Third paragraph, edited on the phone.") == true)
        #expect(result?.contains("Second paragraph about the free spirit.") == true)
    }

    // MARK: needs-user scenarios

    @Test func theSameParagraphEditedDifferentlyNeedsTheUser() {
        let local = edit(Self.base, [("Second paragraph about the free spirit.", "Second paragraph: laptop's version.")])
        let remote = edit(Self.base, [("Second paragraph about the free spirit.", "Second paragraph: phone's version.")])
        guard case .needsUser(let l, let r, let b, let description) = ConflictResolver.resolve(local: local, remote: remote, base: Self.base) else {
            Issue.record("expected a conflict")
            return
        }
        #expect(l == local && r == remote && b == Self.base)
        #expect(description.contains("body"))
    }

    @Test func statusChangedToDifferentValuesNeedsTheUser() {
        let local = edit(Self.base, [("status: reading", "status: finished")])
        let remote = edit(Self.base, [("status: reading", "status: abandoned")])
        guard case .needsUser(_, _, _, let description) = ConflictResolver.resolve(local: local, remote: remote, base: Self.base) else {
            Issue.record("expected a conflict")
            return
        }
        #expect(description.contains("'status'"))
    }

    @Test func bodyRewrittenOnBothSidesNeedsTheUser() {
        let local = "---\ntitle: Beyond Good and Evil\n---\nA completely new text written on the laptop.\nWith two lines.\n"
        let remote = "---\ntitle: Beyond Good and Evil\n---\nAn entirely different text from the phone.\n"
        #expect(merged(local, remote) == nil)
    }

    // MARK: rules

    @Test func withoutABaseOnlyIdenticalTextsMerge() {
        #expect(merged("same", "same", base: nil) == "same")
        #expect(merged("one", "two", base: nil) == nil)
    }

    @Test func oneSidedChangesAreTakenWhole() {
        let local = edit(Self.base, [("# Notes", "# My notes")])
        #expect(merged(local, Self.base) == local)
        #expect(merged(Self.base, local) == local)
    }

    @Test func insertionsAtTheSamePlaceDifferingNeedTheUser() {
        let base = "a\nb\nc\n"
        #expect(merged("a\nb\nX\nc\n", "a\nb\nY\nc\n", base: base) == nil)
        #expect(merged("a\nb\nX\nc\n", "a\nb\nX\nc\n", base: base) == "a\nb\nX\nc\n")
        #expect(merged("X\na\nb\nc\n", "a\nb\nc\nY\n", base: base) == "X\na\nb\nc\nY\n")
    }

    @Test func aFieldRemovedOnOneSideAndUnchangedOnTheOtherIsRemoved() {
        let local = edit(Self.base, [("status: reading\n", "")])
        let remote = edit(Self.base, [("# Notes", "# Notes!")])
        #expect(merged(local, remote) == edit(Self.base, [("status: reading\n", ""), ("# Notes", "# Notes!")]))
    }

    @Test(arguments: ["a.md", "B.MARKDOWN", "dir/c.Md"])
    func markdownIsMergeable(_ path: String) { #expect(ConflictResolver.isMergeable(path)) }

    @Test(arguments: ["a.png", "b.pdf", "c.txt", "md", "notes.md.bak"])
    func otherFilesAreNeverMerged(_ path: String) { #expect(!ConflictResolver.isMergeable(path)) }
}
