package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public value types keep the promises their javadoc makes (found by an outside review). */
class ValueTypesTest {

    @TempDir
    Path dir;

    @Test
    void outgoingRecordsCompareTheirBytesAndPrintTheirSizes() {
        OutgoingRecord a = OutgoingRecord.of(bytes("k"), bytes("value"), Headers.of("h", bytes("1")), 5);
        OutgoingRecord b = OutgoingRecord.of(bytes("k"), bytes("value"), Headers.of("h", bytes("1")), 5);

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(OutgoingRecord.of(bytes("k"), bytes("other"), Headers.of("h", bytes("1")), 5));
        assertThat(OutgoingRecord.of(null, null)).isEqualTo(OutgoingRecord.of(null, null))
                .isNotEqualTo(OutgoingRecord.of(new byte[0], null));
        assertThat(a.toString()).startsWith("OutgoingRecord[key=1 bytes, value=5 bytes, headers=")
                .endsWith(", timestamp=5]");
        assertThat(OutgoingRecord.of(null, null).toString()).contains("key=null, value=null");
    }

    @Test
    void anFsyncIntervalPrintsWhatParseReadsBack() {
        for (Duration d : new Duration[] {Duration.ofMillis(5), Duration.ofNanos(500_000), Duration.ofNanos(1_500),
                Duration.ofNanos(7), Duration.ofSeconds(3), Duration.ofSeconds(Long.MAX_VALUE / 1_000_000, 1_500)}) {
            FsyncPolicy policy = FsyncPolicy.interval(d);
            assertThat(FsyncPolicy.parse(policy.toString())).as(policy.toString()).isEqualTo(policy);
        }
        assertThat(FsyncPolicy.interval(Duration.ofNanos(500_000)).toString()).isEqualTo("interval:PT0.0005S");
        assertThat(FsyncPolicy.interval(Duration.ofSeconds(Long.MAX_VALUE / 1_000_000)).toString()).endsWith("ms");
    }

    @Test
    void aTopicsPartitionSnapshotCannotBeChanged() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).build());
            assertThatThrownBy(() -> t.partitions().add(null)).isInstanceOf(UnsupportedOperationException.class);
            assertThat(t.partitions()).hasSize(2);
        }
    }

    /**
     * The package is {@code @NullMarked}: a record component not marked {@code @Nullable} is one its accessor promises
     * non-null (Kotlin reads it so and checks nothing), so its canonical constructor must refuse a null, naming the
     * component, as README's "Errors" bullet says of every null where a value is required.
     */
    @Test
    void everyPublicRecordRefusesANullForAComponentItDoesNotMarkNullable() throws Exception {
        List<Record> samples = List.of(TopicConfig.DEFAULTS, KafkoOptions.DEFAULTS, ConsumerOptions.DEFAULTS,
                new Header("h", null), OutgoingRecord.of(null, null), new RecordPosition(0, 0),
                new GroupInfo("t", "g", Map.of(0, 1L), Map.of(0, 0L), 1),
                new PartitionInfo("t", 0, 0, 0, 0, 1, PartitionState.RUNNING, null),
                (Record) FsyncPolicy.NEVER, (Record) FsyncPolicy.EVERY_BATCH,
                (Record) FsyncPolicy.interval(Duration.ofSeconds(1)));
        Set<String> sampled = new TreeSet<>();
        Set<String> accepted = new TreeSet<>();
        for (Record sample : samples) {
            Class<?> type = sample.getClass();
            sampled.add(type.getName());
            RecordComponent[] components = type.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
            }
            Constructor<?> canonical = type.getDeclaredConstructor(types);
            for (int i = 0; i < components.length; i++) {
                RecordComponent c = components[i];
                if (c.getType().isPrimitive() || c.getAnnotatedType().isAnnotationPresent(Nullable.class)) {
                    continue;
                }
                Object[] args = new Object[components.length];
                for (int j = 0; j < components.length; j++) {
                    args[j] = j == i ? null : components[j].getAccessor().invoke(sample);
                }
                try {
                    canonical.newInstance(args);
                    accepted.add(type.getSimpleName() + "." + c.getName());
                } catch (InvocationTargetException e) {
                    assertThat(e.getCause()).as(type.getSimpleName() + "." + c.getName())
                            .isInstanceOf(NullPointerException.class).hasMessageContaining(c.getName());
                }
            }
        }
        Set<String> records = new TreeSet<>();
        for (JavaClass c : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("/dev/kafko/internal/")).importPackages("dev.kafko")) {
            Class<?> type = c.reflect();
            if (type.getPackageName().equals("dev.kafko") && type.isRecord() && Modifier.isPublic(type.getModifiers())) {
                records.add(type.getName());
            }
        }
        assertThat(sampled).as("every public record of the package has a sample here").isEqualTo(records);
        assertThat(accepted).as("non-null components that took a null").isEmpty();
    }

    /** An exception whose accessors promise a topic, a group or a detail non-null refuses a null for it. */
    @Test
    void anExceptionRefusesANullForWhatItsAccessorsPromise() {
        assertThatThrownBy(() -> new GroupNotEmptyException(null, "g", 1))
                .isInstanceOf(NullPointerException.class).hasMessage("topic");
        assertThatThrownBy(() -> new GroupNotEmptyException("t", null, 1))
                .isInstanceOf(NullPointerException.class).hasMessage("group");
        assertThatThrownBy(() -> new InvalidTopicLayoutException(null, "lacks a file"))
                .isInstanceOf(NullPointerException.class).hasMessage("topic");
        assertThatThrownBy(() -> new InvalidTopicLayoutException("t", null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("detail");
        assertThatThrownBy(() -> new InvalidTopicLayoutException(null))
                .isInstanceOf(NullPointerException.class).hasMessage("message");
        InvalidTopicLayoutException e = new InvalidTopicLayoutException("t", "lacks a file");
        assertThat(e.topic()).isEqualTo("t");
        assertThat(e.detail()).isEqualTo("lacks a file");
        assertThat(e).hasMessage("topic 't': lacks a file");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
