package dev.kafko;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.jspecify.annotations.NullMarked;

/** The layering of the engine, checked by the build (see docs/ARCHITECTURE.md). */
@AnalyzeClasses(packages = "dev.kafko", importOptions = {ImportOption.DoNotIncludeTests.class, ImportOption.DoNotIncludeJars.class})
class ArchitectureTest {

    @ArchTest
    static final ArchRule storageNeverImportsTheBroker = noClasses()
            .that().resideInAnyPackage("dev.kafko.internal.log..", "dev.kafko.internal.io..")
            .should().dependOnClassesThat().resideInAPackage("dev.kafko.internal.broker..")
            .because("storage knows nothing of actors, producers or consumers");

    @ArchTest
    static final ArchRule ioNeverImportsTheLog = noClasses()
            .that().resideInAPackage("dev.kafko.internal.io..")
            .should().dependOnClassesThat().resideInAPackage("dev.kafko.internal.log..")
            .because("the file-I/O seam knows nothing of records or segments");

    /**
     * Kotlin (and any JSpecify-aware checker) reads the nullness of the public API from {@code @NullMarked}: without
     * it every type of a package is a platform type, and a null key, value or header the API takes or returns is
     * nothing the compiler knows of.
     */
    @ArchTest
    static final ArchRule everyPackageIsNullMarked = classes()
            .should(beInANullMarkedPackage())
            .because("nullness is stated with JSpecify per package, so that Kotlin reads it");

    static ArchCondition<JavaClass> beInANullMarkedPackage() {
        return new ArchCondition<>("be in a package annotated @NullMarked") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                boolean marked = javaClass.getPackage().isAnnotatedWith(NullMarked.class);
                events.add(new SimpleConditionEvent(javaClass, marked,
                        javaClass.getName() + " is in package " + javaClass.getPackageName()
                                + (marked ? ", which is @NullMarked" : ", which has no @NullMarked package-info")));
            }
        };
    }
}
