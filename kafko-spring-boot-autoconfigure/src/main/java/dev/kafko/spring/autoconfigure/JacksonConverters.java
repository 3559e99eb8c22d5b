package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.support.TypeAwareJsonMessageConverter;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import tools.jackson.databind.json.JsonMapper;

/** The JSON converter; this class is loaded only when Jackson 3 is on the classpath. */
final class JacksonConverters {

    private JacksonConverters() {
    }

    /** Spring's Jackson 3 converter over the application's {@link JsonMapper} (Boot's), or a plain one. */
    static TypeAwareJsonMessageConverter json(ListableBeanFactory beanFactory, @Nullable ClassLoader classLoader) {
        JsonMapper mapper = beanFactory.getBeanProvider(JsonMapper.class).getIfUnique(() -> JsonMapper.builder().build());
        return new TypeAwareJsonMessageConverter(mapper, classLoader);
    }
}
