/// A binary min-heap: the least element on top, pushed and popped in
/// O(log n). One home for the package's timers and expiring stores (the
/// deadline sweeper, the in-memory stores' expiry order); it lives here
/// because every module that needs it already imports this one.
package struct MinHeap<Element: Comparable & Sendable>: Sendable {
    /// The elements in heap order (the least first), for a caller that
    /// counts or filters them.
    package private(set) var elements: [Element] = []

    package init() {}

    /// A heap of `elements`, built in O(n).
    package init(_ elements: [Element]) {
        self.elements = elements
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    package var count: Int { elements.count }
    package var isEmpty: Bool { elements.isEmpty }
    /// The least element, if any.
    package var min: Element? { elements.first }

    package mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the least element.
    @discardableResult
    package mutating func popMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let least = elements.removeLast()
        if !elements.isEmpty { siftDown(0) }
        return least
    }

    /// Keeps only the elements `isIncluded` accepts, and rebuilds the heap (O(n)).
    package mutating func filter(_ isIncluded: (Element) -> Bool) {
        self = MinHeap(elements.filter(isIncluded))
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
