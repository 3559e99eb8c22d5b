package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.OffsetResetPolicy;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ListenerConsumerProperties#read} without a context: the edges of the two keys' values and of what an entry may
 * resolve to, which the context tests ({@code ListenerPropertiesTest}, {@code ListenerPropertiesReviewTest}) do not
 * reach.
 */
class ListenerConsumerPropertiesTest {

    private static final String WHERE = "'edges'";

    /** Each entry resolved to itself, as an entry without placeholders is. */
    private static final ListenerTopicPartitions.Resolver AS_IS = (value, attribute) -> value;

    @Test
    void maxPollRecordsOfOneIsTheSmallestTakenAndZeroIsRefused() {
        assertThat(ListenerConsumerProperties.read(new String[] {"max.poll.records=1"}, WHERE, AS_IS).maxPollRecords())
                .isEqualTo(1);
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"max.poll.records=0"}, WHERE, AS_IS))
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties max.poll.records '0' must be at least 1");
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"max.poll.records=many"}, WHERE, AS_IS))
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties max.poll.records 'many' is not a whole number");
    }

    @Test
    void noEntryAndBlankEntriesSetNothing() {
        ListenerConsumerProperties none = ListenerConsumerProperties.read(new String[] {"", "  ", "# a comment"}, WHERE,
                AS_IS);
        assertThat(none.maxPollRecords()).isNull();
        assertThat(none.offsetReset()).isNull();
        // an entry whose placeholder resolves to nothing adds nothing
        ListenerConsumerProperties resolvedToNull = ListenerConsumerProperties.read(new String[] {"${unset}"}, WHERE,
                (value, attribute) -> null);
        assertThat(resolvedToNull.maxPollRecords()).isNull();
    }

    @Test
    void aKeyWithoutAValueIsRefusedNamingIt() {
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"max.poll.records="}, WHERE, AS_IS))
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties entry 'max.poll.records' is not key=value");
    }

    @Test
    void theOffsetResetIsReadWhateverItsCaseAndNoneOrAnotherWordIsRefused() {
        assertThat(ListenerConsumerProperties.read(new String[] {"auto.offset.reset=Earliest"}, WHERE, AS_IS)
                .offsetReset()).isEqualTo(OffsetResetPolicy.EARLIEST);
        assertThat(ListenerConsumerProperties.read(new String[] {"auto.offset.reset = LATEST "}, WHERE, AS_IS)
                .offsetReset()).isEqualTo(OffsetResetPolicy.LATEST);
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"auto.offset.reset=none"}, WHERE, AS_IS))
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageStartingWith("@KafkoListener 'edges': properties auto.offset.reset 'none' is neither"
                        + " earliest nor latest");
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"auto.offset.reset=first"}, WHERE,
                AS_IS)).isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties auto.offset.reset 'first' is neither earliest nor"
                        + " latest");
    }

    @Test
    void eitherIsolationLevelIsTakenAsTheSameReadAndAnotherWordIsRefused() {
        // a transaction's records are written at its commit: there is nothing uncommitted to skip or to read
        for (String level : new String[] {"read_committed", "READ_UNCOMMITTED"}) {
            ListenerConsumerProperties read = ListenerConsumerProperties.read(new String[] {"isolation.level=" + level,
                    "max.poll.records=7"}, WHERE, AS_IS);
            assertThat(read.maxPollRecords()).isEqualTo(7);
            assertThat(read.offsetReset()).isNull();
        }
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"isolation.level=serializable"}, WHERE,
                AS_IS)).isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties isolation.level 'serializable' is neither"
                        + " read_committed nor read_uncommitted");
    }

    @Test
    void aLaterEntryOverridesAnEarlierOneAndANumberOrABooleanIsReadAsText() {
        ListenerConsumerProperties read = ListenerConsumerProperties.read(
                new String[] {"max.poll.records=5", "max.poll.records=9"}, WHERE, AS_IS);
        assertThat(read.maxPollRecords()).isEqualTo(9);
        // an entry whose expression yields a number or a boolean is read as its text (a key without a value here),
        // not refused as another type
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"#{12}"}, WHERE,
                (value, attribute) -> 12)).isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties entry '12' is not key=value");
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"#{true}"}, WHERE,
                (value, attribute) -> Boolean.TRUE)).isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties entry 'true' is not key=value");
    }

    @Test
    void anEntryThatIsNoPropertiesTextIsRefusedSayingWhy() {
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"max.poll.records=\\uZZZZ"}, WHERE,
                AS_IS)).isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageStartingWith("@KafkoListener 'edges': properties entry 'max.poll.records=\\uZZZZ' cannot be"
                        + " read: Malformed");
    }

    @Test
    void aCollectionHoldingSomethingOtherThanTextIsRefusedNamingWhatItHolds() {
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"#{props}"}, WHERE,
                (value, attribute) -> List.of("max.poll.records=2", 3)))
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessage("@KafkoListener 'edges': properties '#{props}' resolved to a collection holding a"
                        + " java.lang.Integer; an entry resolves to text, a String[] or a Collection of text");
        assertThatThrownBy(() -> ListenerConsumerProperties.read(new String[] {"#{props}"}, WHERE,
                (value, attribute) -> Arrays.asList("max.poll.records=2", null)))
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("resolved to a collection holding a null;");
        // a String[] with a null element skips it
        assertThat(ListenerConsumerProperties.read(new String[] {"#{props}"}, WHERE,
                (value, attribute) -> new String[] {null, "max.poll.records=2"}).maxPollRecords()).isEqualTo(2);
    }
}
