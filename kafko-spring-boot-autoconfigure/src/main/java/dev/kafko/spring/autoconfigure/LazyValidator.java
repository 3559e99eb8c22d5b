package dev.kafko.spring.autoconfigure;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.validation.Errors;
import org.springframework.validation.SmartValidator;
import org.springframework.validation.Validator;

/**
 * The application's unique {@link Validator}, looked up when the first {@code @Valid} payload is
 * validated rather than at start-up (creating a Bean Validation provider is costly, and most
 * listeners never validate). Validates nothing when there is no unique validator. Any thread may
 * call it.
 */
final class LazyValidator implements SmartValidator {

    private final SingletonSupplier<Validator> delegate;

    LazyValidator(ObjectProvider<Validator> validators) {
        // NoValidator only when there is no validator bean: a class fewer to load at start-up
        this.delegate = SingletonSupplier.of(new UniqueValidator(validators));
    }

    @Override
    public boolean supports(Class<?> type) {
        return delegate.obtain().supports(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        delegate.obtain().validate(target, errors);
    }

    @Override
    public void validate(Object target, Errors errors, Object... validationHints) {
        Validator validator = delegate.obtain();
        if (validator instanceof SmartValidator smart) {
            smart.validate(target, errors, validationHints);
        } else {
            validator.validate(target, errors);
        }
    }

    @Override
    public @Nullable <T> T unwrap(@Nullable Class<T> type) {
        Validator validator = delegate.obtain();
        return validator instanceof SmartValidator smart ? smart.unwrap(type) : null;
    }

    /** The unique validator bean, else a {@link NoValidator}. */
    private static final class UniqueValidator implements Supplier<Validator> {

        private final ObjectProvider<Validator> validators;

        UniqueValidator(ObjectProvider<Validator> validators) {
            this.validators = validators;
        }

        @Override
        public Validator get() {
            return validators.getIfUnique(NoValidator::new);
        }
    }

    /** Validates nothing: no validator bean. */
    private static final class NoValidator implements Validator {
        @Override
        public boolean supports(Class<?> type) {
            return false;
        }

        @Override
        public void validate(Object target, Errors errors) {
        }
    }
}
