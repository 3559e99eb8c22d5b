package kotlin.coroutines;

/**
 * Stands in for Kotlin's {@code Continuation} in tests of the starter, which compiles no Kotlin: a
 * {@code suspend fun} is a method whose last parameter has this type.
 */
public interface Continuation<T> {
}
