package dev.kafko.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;

/** The starter's layering, checked on its compiled main classes. */
class ArchitectureTest {

    static JavaClasses starter;

    @BeforeAll
    static void importMainClasses() throws Exception {
        Path classes = Path.of(KafkoAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        starter = new ClassFileImporter().importPath(classes);
    }

    @Test
    void theStarterUsesOnlyTheEnginesPublicPackage() {
        noClasses().that().resideInAPackage("dev.kafko.spring..")
                .should().dependOnClassesThat().resideInAPackage("dev.kafko.internal..").check(starter);
    }

    @Test
    void autoConfigurationsAreFinal() {
        classes().that().areAnnotatedWith(AutoConfiguration.class).should().haveModifier(JavaModifier.FINAL)
                .check(starter);
    }

    @Test
    void runtimeClassesDoNotReachIntoTheAutoConfiguration() {
        noClasses().that().resideInAnyPackage("dev.kafko.spring.core..", "dev.kafko.spring.listener..",
                        "dev.kafko.spring.support..", "dev.kafko.spring.annotation..", "dev.kafko.spring.config..")
                .should().dependOnClassesThat().resideInAPackage("dev.kafko.spring.autoconfigure..").check(starter);
    }
}
